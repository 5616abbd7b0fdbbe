// `npm run lint`: eslint (the layers, type-checked rules), prettier, the consoles' types and the import cycles, after
// generating the contract types. The four checks are independent and each runs on one core, so they run side by side
// (on 2 cores, about 24 s instead of 38 s one after the other); each one's output is printed whole, in this order,
// once it has finished. Exits 1 if any failed.
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
const checks = [
  ['eslint', bin('eslint'), ['--max-warnings', '0', '.']],
  ['prettier', bin('prettier'), ['--check', '.']],
  ['the consoles\u2019 types', bin('tsc'), ['-p', 'tsconfig.web.json']],
  ['import cycles', process.execPath, [path.join(__dirname, 'import-cycles.js')]],
];

if (spawnSync(process.execPath, [path.join(__dirname, 'generate.js')], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);

const run = ([name, command, args]) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => resolve({ name, ok: false, out: `${out}${e.message}\n` }));
    child.on('close', (code) => resolve({ name, ok: code === 0, out }));
  });

Promise.all(checks.map(run)).then((results) => {
  for (const r of results) {
    if (r.out) process.stdout.write(r.out.endsWith('\n') ? r.out : `${r.out}\n`);
    if (!r.ok) console.log(`lint: ${r.name} failed`);
  }
  process.exit(results.every((r) => r.ok) ? 0 : 1);
});
