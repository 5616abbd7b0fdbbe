// `npm test`: every jest phase in order, on the database selected by DATABASE_URL (unset: embedded PGlite).
//   1. unit   2. integration   3. contract consumers (contracts/pacts cleared first: pact files merge)
//   4. contract verifications (need the pacts from 3)   5. end-to-end   6. browser (headless Chromium)
//   7. fuzzing (FUZZ_RUNS, default 2,000)   8. faults against the real process (short; FAULTS_SHORT=0 for the full suite)
// Extra arguments go to every phase (e.g. a path filter). Each phase's JSON result goes to .jest-results/,
// and the last line is "N passed, N failed" over all phases.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const only = process.env.TEST_PHASES ? process.env.TEST_PHASES.split(',') : null;
const label = process.env.TEST_RUN_LABEL || (process.env.DATABASE_URL ? 'postgres' : 'embedded');
const outDir = path.join(root, '.jest-results');
fs.mkdirSync(outDir, { recursive: true });

const phases = [
  { name: 'unit', projects: ['unit'] },
  // Two workers: each file has its own database (a schema on PostgreSQL, an in-memory PGlite embedded), and no
  // test asserts an upper bound on time, so files run side by side on the two cores.
  { name: 'integration', projects: ['integration'], extra: ['--maxWorkers=2'] },
  { name: 'contract-consumer', projects: ['contract-consumer'], before: () => fs.rmSync(path.join(root, 'contracts/pacts'), { recursive: true, force: true }) },
  { name: 'contract-verify', projects: ['contract-verify'] },
  { name: 'e2e', projects: ['e2e'], extra: ['--runInBand'] },
  // The consoles in headless Chromium (/usr/bin/chromium; .ci/run installs it).
  { name: 'browser', projects: ['browser'], extra: ['--runInBand'] },
  // Property-based fuzzing of every surface: FUZZ_RUNS cases (2,000 here; `npm run test:fuzz` runs 20,000).
  { name: 'fuzz', projects: ['fuzz'], extra: ['--runInBand'] },
  // Faults against the real service process (dist/, built first): the short version here; `npm run test:faults`
  // runs the full one. The PostgreSQL-only faults skip on the embedded run.
  {
    name: 'faults',
    projects: ['faults'],
    extra: ['--runInBand'],
    env: { FAULTS_SHORT: process.env.FAULTS_SHORT ?? '1' },
    before: () => spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }),
  },
].filter((p) => !only || only.includes(p.name));

const env = {
  ...process.env,
  PACT_DO_NOT_TRACK: 'true',
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' '),
};
const jest = path.join(root, 'node_modules/jest/bin/jest.js');
const passthrough = process.argv.slice(2);
let passed = 0;
let failed = 0;
let ok = true;

// Types are checked once here (src, test, bench, simulators…): jest transpiles each file without checking it.
if (!only || only.includes('unit')) {
  console.log(`\n=== typecheck (${label}) ===`);
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  const typed = tsc.status === 0;
  passed += typed ? 1 : 0;
  failed += typed ? 0 : 1;
  ok &&= typed;
  fs.writeFileSync(path.join(outDir, `${label}-typecheck.json`), JSON.stringify({ numPassedTests: typed ? 1 : 0, numFailedTests: typed ? 0 : 1 }));
}

for (const phase of phases) {
  fs.mkdirSync(outDir, { recursive: true });
  phase.before?.();
  const out = path.join(outDir, `${label}-${phase.name}.json`);
  fs.rmSync(out, { force: true });
  console.log(`\n=== ${phase.name} (${label}) ===`);
  const r = spawnSync(
    process.execPath,
    [
      jest,
      '--config',
      'test/jest.config.js',
      '--selectProjects',
      ...phase.projects,
      '--passWithNoTests',
      '--json',
      `--outputFile=${out}`,
      ...(phase.extra ?? []),
      ...passthrough,
    ],
    { cwd: root, env: { ...env, ...(phase.env ?? {}) }, stdio: 'inherit' },
  );
  if (fs.existsSync(out)) {
    const res = JSON.parse(fs.readFileSync(out, 'utf8'));
    passed += res.numPassedTests;
    failed += res.numFailedTests + (res.numRuntimeErrorTestSuites || 0);
  } else failed += 1;
  if (r.status !== 0) ok = false;
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 ? 0 : 1);
