// PgBouncer for the tests, from deploy/pgbouncer.ini: the same settings, with its own port, files and upstream.
//
//   const pooler = startPgbouncer({ upstream: 'postgres://postgres@127.0.0.1:5432/test' });
//   pooler.url('t_123')   // postgres://postgres@127.0.0.1:<port>/t_123
//   pooler.stop();
//
// PgBouncer will not run as root: as root it runs as the PostgreSQL server's user (-u postgres).
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PROGRAM = '/usr/sbin/pgbouncer';
const CONFIG = path.join(__dirname, '../deploy/pgbouncer.ini');

/** A free TCP port on loopback (asked of the kernel, then released). */
function freePort() {
  const r = spawnSync(process.execPath, ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"], {
    encoding: 'utf8',
  });
  return Number(r.stdout.trim());
}

/** deploy/pgbouncer.ini with this run's addresses and files; every other setting as deployed. */
function config({ upstream, port, dir, connectQuery = true }) {
  const u = new URL(upstream);
  const set = {
    listen_addr: '127.0.0.1',
    listen_port: String(port),
    unix_socket_dir: '',
    auth_file: path.join(dir, 'userlist.txt'),
    logfile: path.join(dir, 'pgbouncer.log'),
    pidfile: path.join(dir, 'pgbouncer.pid'),
  };
  return fs
    .readFileSync(CONFIG, 'utf8')
    .split('\n')
    .map((line) => {
      const key = /^\s*([a-z_*]+)\s*=/.exec(line)?.[1];
      if (key === '*') {
        const target = line.replace(/host=\S+/, `host=${u.hostname}`).replace(/port=\d+/, `port=${u.port || 5432}`);
        return connectQuery ? target : target.replace(/\s*connect_query='[^']*'/, '');
      }
      return key && key in set ? `${key} = ${set[key]}` : line;
    })
    .join('\n');
}

/** `connectQuery: false` drops the timeouts deploy/pgbouncer.ini sets per server connection (to test the start's check). */
function startPgbouncer({ upstream, connectQuery = true }) {
  if (!fs.existsSync(PROGRAM))
    throw new Error(`${PROGRAM} is missing: \`node scripts/system-programs.js install\` as root installs it (apt-get install pgbouncer)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-pgbouncer-'));
  const port = freePort();
  const user = decodeURIComponent(new URL(upstream).username || 'postgres');
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" ""\n`);
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(ini, config({ upstream, port, dir, connectQuery }));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const uid = Number(id.stdout.trim());
    for (const f of [dir, ...fs.readdirSync(dir).map((f) => path.join(dir, f))]) fs.chownSync(f, uid, uid);
  }
  // Its output goes to a file, not a pipe: the caller may block in spawnSync for a whole phase, and PgBouncer
  // (which also logs to stderr) would stop at the first full pipe buffer.
  const errFile = path.join(dir, 'stderr.log');
  let child;
  // Ready when it accepts a TCP connection. Not pg_isready: that logs in, and PgBouncer then connects to the server,
  // which may sit behind something in this very process (a test's proxy) that a synchronous wait would block.
  const probe = `require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`;
  const ready = () => spawnSync(process.execPath, ['-e', probe], { timeout: 2000 }).status === 0;
  const launch = () => {
    // A killed PgBouncer leaves its pid file, and a new one refuses to start beside it.
    fs.rmSync(path.join(dir, 'pgbouncer.pid'), { force: true });
    const errFd = fs.openSync(errFile, 'a');
    child = spawn(PROGRAM, [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: ['ignore', errFd, errFd] });
    fs.closeSync(errFd);
    for (let i = 0; i < 100 && child.exitCode === null && !ready(); i += 1) spawnSync('sleep', ['0.1']);
    if (child.exitCode !== null || !ready()) {
      const log = fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : '';
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start on port ${port}:\n${fs.readFileSync(errFile, 'utf8').slice(-2000)}${log.slice(-2000)}`);
    }
  };
  launch();
  return {
    port,
    dir,
    url: (database) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`,
    /** Gone at once, every connection dropped (a crash, or a restart's first half). */
    kill() {
      child.kill('SIGKILL');
      spawnSync('sleep', ['0.2']);
    },
    /** Started again on the same port with the same settings (after kill). */
    start() {
      launch();
    },
    stop() {
      child.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startPgbouncer, freePort, PROGRAM };

// `node scripts/pgbouncer.js [upstream]`: one PgBouncer in front of DATABASE_URL (or the given server) until Ctrl-C,
// for running test files through it by hand (TEST_DATABASE_POOLER=<the address printed>).
if (require.main === module) {
  const upstream = process.argv[2] || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const pooler = startPgbouncer({ upstream });
  console.log(`PgBouncer (transaction mode) in front of ${new URL(upstream).host}: TEST_DATABASE_POOLER=${pooler.url('')}  (Ctrl-C stops it)`);
  const stop = () => {
    pooler.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  setInterval(() => undefined, 1 << 30);
}
