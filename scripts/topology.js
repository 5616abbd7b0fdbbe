// The production topology on loopback: HAProxy (deploy/haproxy.cfg) → three instances of the built service
// (NODE_ENV=production, each with OPS_LISTEN on its own port) → PgBouncer in transaction mode (deploy/pgbouncer.ini)
// → PostgreSQL, with Redis for the anonymous limit. Used by the topology tests and by `npm run topology`:
//
//   npm run topology                      DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and REDIS_URL
//                                         (default redis://127.0.0.1:6379); a database `lanka_topology` on that server
//
// Each instance can be stopped (SIGTERM or SIGKILL) and started again on its ports, as a rolling restart does.
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, startPgbouncer } = require('./pgbouncer');

const ROOT = path.join(__dirname, '..');
const HAPROXY = '/usr/sbin/haproxy';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const onDatabase = (url, name) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Polls `url` until it answers `status` (or `ms` pass). */
async function until(url, status = 200, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.status === status) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`${url} did not answer ${status} within ${ms / 1000} s`);
    await sleep(100);
  }
}

/** Runs a program to its end without blocking this process (which may hold a test's proxy to the database). */
function run(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${cmd} exited ${code}: ${err}${out}`))));
  });
}

const psql = (url, sql) => run('psql', [url, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql]);

/** deploy/haproxy.cfg with this run's listening address and servers; every other setting as deployed. */
function haproxyConfig(port, servers) {
  const lines = [];
  for (const line of fs.readFileSync(path.join(ROOT, 'deploy/haproxy.cfg'), 'utf8').split('\n')) {
    if (/^\s*bind\s/.test(line)) lines.push(`    bind 127.0.0.1:${port}`);
    else if (/^\s*errorfile 503\s/.test(line)) lines.push(`    errorfile 503 ${path.join(ROOT, 'deploy/haproxy-503.http')}`);
    else if (/^\s*server\s/.test(line)) {
      if (!lines.some((l) => l.startsWith('    server '))) for (const s of servers) lines.push(`    server ${s.name} 127.0.0.1:${s.port}`);
    } else lines.push(line);
  }
  return lines.join('\n');
}

/**
 * Starts it all. `database`: the database's name on the server (made if missing; `fresh: true` makes a new one and
 * drops it at stop). `env`: more variables for every instance. Resolves once HAProxy routes to every instance.
 */
async function startTopology({
  databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
  redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379',
  database = 'lanka_topology',
  fresh = false,
  instances: count = 3,
  env = {},
  log = () => undefined,
} = {}) {
  if (!fs.existsSync(path.join(ROOT, 'dist/src/main.js'))) throw new Error('dist/src/main.js is missing: npm run build first');
  if (!fs.existsSync(HAPROXY)) throw new Error(`${HAPROXY} is missing: \`node scripts/system-programs.js install\` as root installs it`);
  const name = fresh ? `topology_${crypto.randomBytes(4).toString('hex')}` : database;
  if ((await psql(databaseUrl, `select count(*) from pg_database where datname = '${name}'`)) === '0') await psql(databaseUrl, `create database ${name}`);
  const pooler = startPgbouncer({ upstream: databaseUrl });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-topology-'));
  const operatorToken = `op_topology_${crypto.randomBytes(16).toString('hex')}`;
  const common = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    DATABASE_URL: pooler.url(name),
    DATABASE_DIRECT_URL: onDatabase(databaseUrl, name),
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `topology-${name}`,
    // HAProxy is on loopback: it may name the client (and only it: it drops what the client wrote).
    TRUST_PROXY: 'loopback',
    OPERATOR_TOKEN: operatorToken,
    DRAIN_DELAY_MS: '3000',
    LOG_LEVEL: process.env.TOPOLOGY_LOG_LEVEL || 'warn',
    DATA_DIR: dir,
    ...env,
  };
  log(`migrating ${name} (direct)…`);
  await run(process.execPath, ['dist/src/cli/migrate.js'], { cwd: ROOT, env: common });

  const members = [];
  for (let i = 0; i < count; i += 1) {
    const member = {
      name: String.fromCharCode(97 + i),
      port: freePort(),
      opsPort: freePort(),
      child: null,
      exits: 0,
      output: '',
      get pid() {
        return this.child?.pid;
      },
      get url() {
        return `http://127.0.0.1:${this.port}`;
      },
      get opsUrl() {
        return `http://127.0.0.1:${this.opsPort}`;
      },
      /** Starts it on its ports; resolves when its /readyz answers 200. */
      async start() {
        const logFile = fs.openSync(path.join(dir, `${this.name}.log`), 'a');
        this.child = spawn(process.execPath, ['--max-old-space-size=192', 'dist/src/main.js'], {
          cwd: ROOT,
          env: { ...common, PORT: String(this.port), OPS_LISTEN: `127.0.0.1:${this.opsPort}` },
          stdio: ['ignore', logFile, logFile],
        });
        fs.closeSync(logFile);
        const child = this.child;
        child.once('exit', () => (this.exits += 1));
        await until(`${this.url}/readyz`);
      },
      /** Sends `signal` (SIGTERM: drains; SIGKILL: gone at once); resolves with the exit code or signal. */
      stop(signal = 'SIGTERM') {
        const child = this.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve(null);
        return new Promise((resolve) => {
          child.once('exit', (code, sig) => resolve(sig ?? code));
          child.kill(signal);
        });
      },
      log() {
        return fs.readFileSync(path.join(dir, `${this.name}.log`), 'utf8');
      },
    };
    members.push(member);
  }
  log(`starting ${count} instances…`);
  await Promise.all(members.map((m) => m.start()));

  const port = freePort();
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfig(port, members));
  const haproxyLog = fs.openSync(path.join(dir, 'haproxy.log'), 'a');
  const haproxy = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['ignore', haproxyLog, haproxyLog] });
  fs.closeSync(haproxyLog);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise((_, reject) =>
    haproxy.once('exit', (code) => reject(new Error(`haproxy exited (${code}): ${fs.readFileSync(path.join(dir, 'haproxy.log'), 'utf8').slice(-1500)}`))),
  );
  exited.catch(() => undefined);
  await Promise.race([until(`${url}/readyz`, 200, 30_000), exited]);
  // Every server up in HAProxy (rise 2 at inter 1 s).
  await sleep(2500);

  return {
    url,
    name,
    pooler,
    instances: members,
    operatorToken,
    dir,
    async stop() {
      haproxy.kill('SIGTERM');
      await Promise.all(members.map((m) => m.stop('SIGTERM')));
      pooler.stop();
      if (fresh) await psql(databaseUrl, `drop database if exists ${name} with (force)`);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startTopology, HAPROXY };

if (require.main === module) {
  startTopology({ log: (l) => console.log(l) }).then(
    (t) => {
      console.log(`\nThe production topology on loopback (database ${t.name}):`);
      console.log(`  HAProxy            ${t.url}   (deploy/haproxy.cfg)`);
      for (const m of t.instances) console.log(`  instance ${m.name}         ${m.url}   operator API ${m.opsUrl}/ops/v1   pid ${m.pid}`);
      console.log(`  PgBouncer          ${t.pooler.url(t.name)}   (transaction mode, deploy/pgbouncer.ini)`);
      console.log(`  PostgreSQL         ${process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'} → ${t.name}`);
      console.log(`  Redis              ${process.env.REDIS_URL || 'redis://127.0.0.1:6379'}   (the anonymous limit)`);
      console.log(`  operator token     ${t.operatorToken}`);
      console.log(`  logs               ${t.dir}\n\nCtrl-C stops it all.`);
      const stop = () => t.stop().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (e) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
