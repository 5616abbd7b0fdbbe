// The system programs some tests need, from Debian's packages, and the one step that installs them: .ci/run runs it,
// and `npm test` runs it too when it may (as root, with apt-get on the PATH), so a fresh machine of this kind runs
// everything. Where it may not, those tests are skipped, each with a line naming the program and this command.
//
//   node scripts/system-programs.js            lists what is missing
//   node scripts/system-programs.js install    installs what is missing (apt-get; root)
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** Each program, the package that brings it and what needs it. */
const PROGRAMS = [
  { program: '/usr/bin/chromium', pkg: 'chromium', needed: 'the browser tests (playwright-core drives it; nothing is downloaded)' },
  { program: 'promtool', pkg: 'prometheus', needed: 'the alert-rule tests' },
  { program: 'prometheus', pkg: 'prometheus', needed: 'the scrape test' },
  { program: 'curl', pkg: 'curl', needed: "the first-start test (it runs the curl that npm start prints) and the guides' examples" },
  { program: 'jq', pkg: 'jq', needed: "the guides' examples (they keep the ids a call answered with jq)" },
  { program: '/usr/sbin/pgbouncer', pkg: 'pgbouncer', needed: 'the integration pass through a transaction pooler, and the topology tests (PostgreSQL runs)' },
  { program: '/usr/sbin/haproxy', pkg: 'haproxy', needed: 'the topology tests (PostgreSQL runs)' },
];

const INSTALL_COMMAND = 'node scripts/system-programs.js install';

function found(program) {
  const runnable = (file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return runnable(program);
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && runnable(path.join(dir, program)));
}

const missing = () => PROGRAMS.filter((p) => !found(p.program));

/** Whether this process may install packages: root, with apt-get. */
const mayInstall = () => process.getuid?.() === 0 && found('apt-get');

/** Installs the packages of the missing programs; true when nothing is missing afterwards. */
function install(log = (line) => console.log(line)) {
  const lacking = missing();
  if (!lacking.length) return true;
  const packages = [...new Set(lacking.map((p) => p.pkg))];
  if (!mayInstall()) {
    log(`missing ${lacking.map((p) => p.program).join(', ')}: run \`${INSTALL_COMMAND}\` as root (apt-get install ${packages.join(' ')})`);
    return false;
  }
  log(`installing ${packages.join(', ')} with apt-get (for ${lacking.map((p) => p.needed).join('; ')})…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
  if (!run(['install', '-y', '-qq', ...packages])) {
    // A fresh machine has no package lists yet.
    run(['update', '-qq']);
    run(['install', '-y', '-qq', ...packages]);
  }
  const still = missing();
  if (still.length) log(`could not install ${still.map((p) => p.pkg).join(', ')}: the tests that need them will be skipped (or fail in CI)`);
  else log(`installed ${packages.join(', ')}`);
  return still.length === 0;
}

module.exports = { PROGRAMS, INSTALL_COMMAND, missing, mayInstall, install };

if (require.main === module) {
  if (process.argv[2] === 'install') process.exit(install() ? 0 : 1);
  const lacking = missing();
  for (const p of lacking) console.log(`missing ${p.program} (package ${p.pkg}), for ${p.needed}`);
  if (!lacking.length) console.log('every system program the tests use is here');
  process.exit(lacking.length ? 1 : 0);
}
