// `npm test`: every jest phase in order, on the database selected by DATABASE_URL (unset: embedded PGlite).
//   1. unit   2. integration   3. contract consumers (contracts/pacts cleared first: pact files merge)
//   4. contract verifications (need the pacts from 3)   5. end-to-end   6. browser (headless Chromium)
//   7. fuzzing (FUZZ_RUNS, default 2,000)   8. faults against the real process (short; FAULTS_SHORT=0 for the full suite)
//   On PostgreSQL, after 2: the integration phase again through PgBouncer in transaction mode (integration-pooled);
//   and last, the production topology (HAProxy, three instances, PgBouncer, Redis) under restarts (topology).
// Extra arguments go to every phase (e.g. a path filter). Each phase's JSON result goes to .jest-results/,
// and the last line is "N passed, N failed" over all phases.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const only = process.env.TEST_PHASES ? process.env.TEST_PHASES.split(',') : null;
// TEST_SKIP_PHASES: phases left out (CI's PostgreSQL pass leaves out the browser phase, run by the embedded pass).
const skipped = (process.env.TEST_SKIP_PHASES ?? '').split(',').filter(Boolean);
const label = process.env.TEST_RUN_LABEL || (process.env.DATABASE_URL ? 'postgres' : 'embedded');
const outDir = path.join(root, '.jest-results');
fs.mkdirSync(outDir, { recursive: true });

// Jest's default on this 2-core machine is one worker (cores - 1), which runs a phase's files one after another:
// the phases with several independent files say --maxWorkers=2 (each file starts its own service on a random port
// and its own database). e2e is one file; browser and faults stay one file at a time (Chromium, and real processes
// under load with timed faults, each take what a core has).
// The integration and browser files run a folder at a time (TEST_GROUPED), but file by file when the arguments name
// a path.
const grouped = String(!process.argv.slice(2).some((arg) => !arg.startsWith('-')));
const phases = [
  // Two at a time: the few files that load every contract take most of the phase, and run beside the rest.
  { name: 'unit', projects: ['unit'], extra: ['--maxWorkers=2'] },
  // Two workers: each file has its own database (a schema on PostgreSQL, an in-memory PGlite embedded), and no
  // test asserts an upper bound on time, so files run side by side on the two cores. Each folder's files run as one
  // jest test file, loading the service's modules once (test/support/grouped.ts), unless a path is given.
  { name: 'integration', projects: ['integration'], extra: ['--maxWorkers=2'], env: { TEST_GROUPED: grouped } },
  // PostgreSQL only: the same files with DATABASE_URL through PgBouncer in transaction mode (deploy/pgbouncer.ini),
  // as production runs behind a pooler; each file gets a database of its own there (test/support/test-app.ts).
  ...(process.env.DATABASE_URL
    ? [
        {
          name: 'integration-pooled',
          projects: ['integration'],
          extra: ['--maxWorkers=2'],
          env: { TEST_GROUPED: grouped },
          before: (phaseEnv) => {
            const { startPgbouncer } = require('./pgbouncer');
            const pooler = startPgbouncer({ upstream: process.env.DATABASE_URL });
            console.log(`PgBouncer (transaction mode) on port ${pooler.port}, in front of ${new URL(process.env.DATABASE_URL).host}`);
            phaseEnv.TEST_DATABASE_POOLER = pooler.url('');
            return () => pooler.stop();
          },
          unavailable: () => {
            const { PROGRAM } = require('./pgbouncer');
            return fs.existsSync(PROGRAM) ? null : `${PROGRAM} (\`node scripts/system-programs.js install\` as root installs it)`;
          },
        },
      ]
    : []),
  // The pacts go to contracts/pacts, or to TEST_PACT_DIR (test/support/pacts.ts).
  {
    name: 'contract-consumer',
    projects: ['contract-consumer'],
    before: () => fs.rmSync(path.resolve(root, process.env.TEST_PACT_DIR || 'contracts/pacts'), { recursive: true, force: true }),
  },
  // Four verifications, each against its own service or simulator on random ports: two at a time.
  { name: 'contract-verify', projects: ['contract-verify'], extra: ['--maxWorkers=2'] },
  { name: 'e2e', projects: ['e2e'], extra: ['--runInBand'] },
  // The consoles in headless Chromium (/usr/bin/chromium; .ci/run installs it), as one jest file (like integration's).
  { name: 'browser', projects: ['browser'], extra: ['--runInBand'], env: { TEST_GROUPED: grouped } },
  // Property-based fuzzing of every surface: FUZZ_RUNS cases (2,000 here; `npm run test:fuzz` runs 20,000), in two
  // shards of half the cases each (two files, each with its own service and database), two at a time.
  { name: 'fuzz', projects: ['fuzz'], extra: ['--maxWorkers=2'] },
  // Faults against the real service process (dist/, built first): the short version here; `npm run test:faults`
  // runs the full one. The PostgreSQL-only faults skip on the embedded run.
  {
    name: 'faults',
    projects: ['faults'],
    extra: ['--runInBand'],
    env: { FAULTS_SHORT: process.env.FAULTS_SHORT ?? '1' },
    before: () => spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }),
  },
  // PostgreSQL only: the production topology on loopback (scripts/topology.js: HAProxy, three built instances,
  // PgBouncer, Redis) under rolling restarts, kill -9 and a pooler restart. The build is the faults phase's.
  ...(process.env.DATABASE_URL
    ? [
        {
          name: 'topology',
          projects: ['topology'],
          extra: ['--runInBand'],
          before: () => spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }),
          unavailable: () => {
            const lacking = ['/usr/sbin/haproxy', '/usr/sbin/pgbouncer'].filter((p) => !fs.existsSync(p));
            return lacking.length ? `${lacking.join(' and ')} (\`node scripts/system-programs.js install\` as root installs them)` : null;
          },
        },
      ]
    : []),
].filter((p) => (!only || only.includes(p.name)) && !skipped.includes(p.name));

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
// Seconds per step (typecheck, each phase with its `before`), printed at the end: wall clock, and the CPU time of
// the step's processes (Linux: this process's waited-for children in /proc/self/stat; jest waits for its workers).
const timings = [];
const childCpu = () => {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime + cstime, in clock ticks (100 a second)
  } catch {
    return NaN;
  }
};
const timed = (name, fn) => {
  const t0 = Date.now();
  const c0 = childCpu();
  const r = fn();
  timings.push({ name, seconds: (Date.now() - t0) / 1000, cpu: childCpu() - c0 });
  return r;
};

// The system programs some tests need (chromium, promtool and prometheus, curl): installed first, with the step
// .ci/run uses, when this may (as root, with apt-get; TEST_INSTALL_SYSTEM_PROGRAMS=false declines); otherwise the
// tests that need them are skipped, each with a line saying so and how to install it.
if (
  (!only || only.some((p) => ['integration', 'integration-pooled', 'browser', 'topology'].includes(p))) &&
  process.env.TEST_INSTALL_SYSTEM_PROGRAMS !== 'false'
) {
  const programs = require('./system-programs');
  const lacking = programs.missing();
  if (lacking.length && programs.mayInstall()) timed('system programs', () => programs.install());
  else if (lacking.length)
    console.log(
      `\nnot here: ${lacking.map((p) => p.program).join(', ')}; the tests that need them are skipped (\`${programs.INSTALL_COMMAND}\` as root installs them)`,
    );
}

// Types are checked once here (src, test, bench, simulators…): jest transpiles each file without checking it.
// Incrementally: tsc keeps what it learnt in node_modules/.cache/ and, when no input changed since (a second run),
// answers in a few seconds instead of checking everything again.
// TEST_SKIP_PHASES=typecheck leaves it out (CI's PostgreSQL pass, beside the embedded pass that checks the same code).
if ((!only || only.includes('unit')) && !skipped.includes('typecheck')) {
  console.log(`\n=== typecheck (${label}) ===`);
  const buildInfo = path.join(root, 'node_modules/.cache/typecheck/tsconfig.tsbuildinfo');
  const tsc = timed('typecheck', () =>
    spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', buildInfo],
      { cwd: root, stdio: 'inherit' },
    ),
  );
  const typed = tsc.status === 0;
  passed += typed ? 1 : 0;
  failed += typed ? 0 : 1;
  ok &&= typed;
  fs.writeFileSync(path.join(outDir, `${label}-typecheck.json`), JSON.stringify({ numPassedTests: typed ? 1 : 0, numFailedTests: typed ? 0 : 1 }));
}

for (const phase of phases) {
  fs.mkdirSync(outDir, { recursive: true });
  const out = path.join(outDir, `${label}-${phase.name}.json`);
  fs.rmSync(out, { force: true });
  console.log(`\n=== ${phase.name} (${label}) ===`);
  const missing = phase.unavailable?.();
  if (missing) {
    // Skipped where the program may not be installed; a failure where it must be (CI).
    const required = process.env.TEST_REQUIRE_SYSTEM_PROGRAMS === 'true';
    console.log(`${required ? 'FAILED' : 'skipped'}: ${phase.name} needs ${missing}`);
    fs.writeFileSync(out, JSON.stringify({ numPassedTests: 0, numFailedTests: required ? 1 : 0 }));
    if (required) {
      failed += 1;
      ok = false;
    }
    continue;
  }
  const phaseEnv = { ...env, ...(phase.env ?? {}) };
  let after;
  const r = timed(phase.name, () => {
    try {
      after = phase.before?.(phaseEnv);
    } catch (e) {
      console.log(`${phase.name}: could not start: ${e.message}`);
      return { status: 1 };
    }
    return spawnSync(
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
      { cwd: root, env: phaseEnv, stdio: 'inherit' },
    );
  });
  if (typeof after === 'function') after();
  if (fs.existsSync(out)) {
    const res = JSON.parse(fs.readFileSync(out, 'utf8'));
    passed += res.numPassedTests;
    failed += res.numFailedTests + (res.numRuntimeErrorTestSuites || 0);
  } else failed += 1;
  if (r.status !== 0) ok = false;
}
console.log(`\n=== seconds per step (${label}): wall, CPU ===`);
const row = (name, wall, cpu) => console.log(`${name.padEnd(18)} ${wall.toFixed(1).padStart(7)} ${Number.isNaN(cpu) ? '' : cpu.toFixed(1).padStart(7)}`);
for (const t of timings) row(t.name, t.seconds, t.cpu);
row(
  'total',
  timings.reduce((sum, t) => sum + t.seconds, 0),
  timings.reduce((sum, t) => sum + t.cpu, 0),
);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 ? 0 : 1);
