// `npm run build` (and so `npm start`, migrate, bench, certify…): the contract types (scripts/generate.js, skipped
// when no contract changed), then TypeScript in build mode, incremental: `tsc -b --incremental` keeps what it knows
// in dist/tsconfig.tsbuildinfo, returns at once when no input changed since, and otherwise compiles and checks only
// the changed files and the files their types reach. The output in dist/ is what `tsc -p tsconfig.json` writes.
// tsc trusts its build info and would not write again an output deleted by hand: if any .js is missing for a .ts
// source, everything is compiled again (--force). Exit status: tsc's (it still writes the output on type errors).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { generate } = require('./generate');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');

/** Whether every .ts source under tsconfig.json's include folders has its .js in dist/. */
function outputsPresent() {
  let include;
  try {
    include = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8')).include;
  } catch {
    return false;
  }
  if (!Array.isArray(include)) return false;
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const file = path.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !walk(file)) return false;
      } else if (/\.[cm]?ts$/.test(entry.name) && !/\.d\.[cm]?ts$/.test(entry.name)) {
        const js = path.join(dist, file.replace(/ts$/, 'js'));
        if (!fs.existsSync(js)) return false;
      }
    }
    return true;
  };
  return include.every((dir) => !fs.existsSync(path.join(root, dir)) || walk(dir));
}

let generated;
try {
  generated = generate();
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
if (generated > 0) process.stderr.write(`types generated in src/generated/ (${generated} contract${generated === 1 ? '' : 's'})\n`);
const force = fs.existsSync(path.join(dist, 'tsconfig.tsbuildinfo')) && !outputsPresent();
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.json', '--incremental', ...(force ? ['--force'] : [])], { cwd: root, stdio: 'inherit' });
if (r.error) throw r.error;
process.exit(r.status ?? 1);
