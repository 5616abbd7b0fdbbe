// Launcher of the operator CLI (`npm run --silent operator -- …`): runs dist/src/cli/operator.js, building first
// when it is missing or older than a source. The build writes to stderr only, so `--json` leaves stdout clean.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const target = path.join(root, 'dist/src/cli/operator.js');
// The build is incremental (scripts/build.js): it rewrites only the outputs whose source changed, but its build info
// after every build, so that is the build's time.
const buildInfo = path.join(root, 'dist/tsconfig.tsbuildinfo');
// Made from contracts/ (compared anyway).
const generated = path.join(root, 'src/generated');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (file === generated) continue;
    // An editor's temporary file may vanish between readdir and stat.
    const mtime = entry.isDirectory() ? newestMtime(file) : (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    newest = Math.max(newest, mtime);
  }
  return newest;
}

const sources = Math.max(newestMtime(path.join(root, 'src')), newestMtime(path.join(root, 'contracts')));
const built = Math.max(...[target, buildInfo].map((f) => fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0));
if (!fs.existsSync(target) || built < sources) {
  process.stderr.write('operator: building dist/ (sources changed)…\n');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) {
    if (!fs.existsSync(target)) process.exit(build.status ?? 1);
    // tsc still emits on type errors elsewhere in the tree; the CLI itself needs only commander.
    process.stderr.write(`operator: the build failed (${build.error?.message ?? `exit ${build.status}`}); running the compiled CLI anyway\n`);
  }
}

const cli = spawnSync(process.execPath, [target, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(cli.status ?? 1);
