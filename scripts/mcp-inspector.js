// The MCP Inspector (@modelcontextprotocol/inspector), the client nobody here wrote that the MCP tests drive the
// server with. It is not a devDependency: its web UI's build tool (vite) names an optional, Windows-only package
// that the npm registry does not serve, and `npm ci` refuses a lockfile without it. So it is installed from the
// registry on its own, pinned, into node_modules/.cache/mcp-inspector (kept between runs), by .ci/run and by the
// test itself when missing.
//
//   node scripts/mcp-inspector.js            says whether it is here
//   node scripts/mcp-inspector.js install    installs it (npm; needs the registry)
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const VERSION = '2.12.0';
const DIR = path.join(__dirname, '..', 'node_modules', '.cache', 'mcp-inspector');
/** Its launcher: `node <LAUNCHER> --cli <url> …` is `npx @modelcontextprotocol/inspector --cli <url> …`. */
const LAUNCHER = path.join(DIR, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const INSTALL_COMMAND = 'node scripts/mcp-inspector.js install';

const present = () => fs.existsSync(LAUNCHER);

/** Installs it when missing; true when it is here afterwards. */
function install(log = (line) => console.log(line)) {
  if (present()) return true;
  fs.mkdirSync(DIR, { recursive: true });
  log(`installing @modelcontextprotocol/inspector@${VERSION} into ${path.relative(process.cwd(), DIR)} (npm)…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    ['install', '--prefix', DIR, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `@modelcontextprotocol/inspector@${VERSION}`],
    { stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 },
  );
  if (r.status !== 0 || !present()) {
    log(`could not install the MCP Inspector (npm exit ${r.status ?? r.signal}): the Inspector test will be skipped (or fail in CI)`);
    return false;
  }
  return true;
}

module.exports = { VERSION, LAUNCHER, INSTALL_COMMAND, present, install };

if (require.main === module) {
  if (process.argv[2] === 'install') process.exit(install() ? 0 : 1);
  console.log(present() ? `the MCP Inspector ${VERSION} is here` : `missing the MCP Inspector: ${INSTALL_COMMAND}`);
  process.exit(present() ? 0 : 1);
}
