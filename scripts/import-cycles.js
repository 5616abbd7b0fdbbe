// Lint: refuses an import cycle in src/, type-only imports included (`npm run lint` runs it). A cycle is a knot: no
// module in it can be read, changed or tested without the others, and the layers (eslint.config.mjs) say which way
// imports go only if nothing comes back. Refused: a cycle of files; a cycle of the domain's aggregate folders
// (src/domain/<aggregate>/: bookings importing fleet and fleet importing bookings, even with no cycle of files),
// reported with the import lines that make it; and any import of an aggregate by src/domain/kernel, the words they
// share. Prints each and exits 1 when there is one.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const src = path.join(root, 'src');
const domain = path.join(src, 'domain');
const skip = new Set([path.join(src, 'generated')]);
const rel = (f) => path.relative(root, f);

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (skip.has(p)) return [];
    if (e.isDirectory()) return files(p);
    return /\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name) ? [p] : [];
  });
}

function resolve(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [`${base}.ts`, path.join(base, 'index.ts'), base]) if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return undefined;
}

/** The import statement around a position, on one line, with its place: `src/…/a.ts:5: import { x } from '../b/x';`. */
function importLine(file, text, pos) {
  const lines = text.slice(0, pos).split('\n');
  let first = lines.length - 1;
  while (first > 0 && !/^\s*(import|export)\b/.test(lines[first])) first -= 1;
  const rest = text.slice(pos).split('\n')[0];
  const statement = [...lines.slice(first, -1), lines[lines.length - 1] + rest].join(' ').replace(/\s+/g, ' ').trim();
  return `${rel(file)}:${first + 1}: ${statement}`;
}

// The file graph; and the aggregate folders' graph: an edge A → B for each file of src/domain/A/ importing one of
// src/domain/B/, with the import lines that make it.
const aggregateOf = (f) =>
  f.startsWith(domain + path.sep) && path.relative(domain, f).includes(path.sep) ? path.relative(domain, f).split(path.sep)[0] : undefined;
const graph = new Map();
const folders = new Map();
const linesOf = new Map();
for (const f of files(src)) {
  const text = fs.readFileSync(f, 'utf8');
  const targets = new Set();
  for (const i of ts.preProcessFile(text, true, true).importedFiles) {
    const t = resolve(f, i.fileName);
    if (!t || !t.endsWith('.ts') || skip.has(path.dirname(t))) continue;
    targets.add(t);
    const [a, b] = [aggregateOf(f), aggregateOf(t)];
    if (!a || !b || a === b) continue;
    folders.set(a, [...new Set([...(folders.get(a) ?? []), b])]);
    linesOf.set(`${a} → ${b}`, [...(linesOf.get(`${a} → ${b}`) ?? []), importLine(f, text, i.pos)]);
  }
  graph.set(f, [...targets]);
}

/** Tarjan's strongly connected components: every component of more than one node (or a node importing itself) is at least one cycle. */
function knotsOf(g) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const knots = [];
  function visit(v) {
    meta.set(v, { index, low: index, on: true });
    index += 1;
    stack.push(v);
    for (const w of g.get(v) ?? []) {
      if (!meta.has(w)) {
        visit(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).on) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).on = false;
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (g.get(v) ?? []).includes(v)) knots.push(scc);
    }
  }
  for (const v of g.keys()) if (!meta.has(v)) visit(v);
  return knots;
}

/** One cycle through the component's first node, for the message (breadth-first back to it). */
function cycleThrough(g, scc) {
  const inside = new Set(scc);
  const start = scc.slice().sort()[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of g.get(v) ?? []) {
      if (w === start) {
        const pathBack = [start];
        for (let x = v; x !== start; x = prev.get(x)) pathBack.splice(1, 0, x);
        return [...pathBack, start];
      }
      if (inside.has(w) && !prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

let problems = 0;
for (const scc of knotsOf(graph)) {
  console.error(`import cycle (${scc.length} files): ${cycleThrough(graph, scc).map(rel).join(' → ')}`);
  problems += 1;
}

function report(message, path) {
  console.error(message);
  for (let k = 0; k + 1 < path.length; k += 1) for (const line of linesOf.get(`${path[k]} → ${path[k + 1]}`)) console.error(`  ${line}`);
  problems += 1;
}
// Each pair of folders importing each other first; with their imports set aside, whatever longer cycle is left.
const left = new Map([...folders].map(([a, bs]) => [a, [...bs]]));
const drop = (a, b) => left.get(a).splice(left.get(a).indexOf(b), 1);
for (let knots = knotsOf(left); knots.length; knots = knotsOf(left)) {
  for (const scc of knots.map((k) => k.sort())) {
    const pairs = [];
    for (const a of scc) for (const b of left.get(a)) if (a < b && scc.includes(b) && left.get(b).includes(a)) pairs.push([a, b, a]);
    const cycles = pairs.length ? pairs.sort() : [cycleThrough(left, scc)];
    for (const cycle of cycles) {
      report(`aggregate cycle in src/domain: ${cycle.join(' → ')}, by these imports:`, cycle);
      drop(cycle[0], cycle[1]);
      if (pairs.length) drop(cycle[1], cycle[0]);
    }
  }
}
for (const b of folders.get('kernel') ?? []) report(`src/domain/kernel (the words aggregates share) imports no aggregate, yet imports ${b}:`, ['kernel', b]);

if (problems) {
  console.error(`${problems} import cycle(s) or kernel import(s) in src/: move the shared word down (src/domain/kernel, src/shared) or take it as a port.`);
  process.exit(1);
}
