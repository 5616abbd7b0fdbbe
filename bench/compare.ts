/**
 * `npm run bench -- --against <commit>`: the working tree's build (new) against another commit's (old), scenario by
 * scenario, on the same machine in one sitting. The commit is built in a work tree of its own (bench/builds.ts);
 * each build's service is started from its own dist/ on a fresh database seeded by its own code, and driven by this
 * tree's load generator and scenario set-up, so both get exactly the same requests. Each round (`--rounds`, default
 * 3) starts both services afresh, each on a fresh database, and runs every scenario on the new build and at once on
 * the old one: new, old, new, old…
 *
 * Prints each build's throughput per round, new ÷ old of the medians with the spread of the per-round ratios
 * (new_i ÷ old_i, the two runs of round i being back to back), and p99; writes bench/results/against-<commit>.md and
 * .json. Exits 1 if a scenario answered unexpectedly, 2 if the commit cannot be built.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/env';
import { makeKnex } from '../src/data/knex';
import { signMarketplaceRequest } from '../src/shared/signing/marketplace-signature';
import { call, fmtInt, offerPool, serviceNodeOptions, type BenchOptions } from './http.bench';
import type { LoadOutcome, LoadSpec } from './load-generator';
import { cpuMicros, postgresCpuMicros, runLoad, startService } from './processes';
import { BOOKING_TEMPLATE, QUOTE_BODY, SEARCH_BODY } from './scenarios';
import { BuildError, currentBuild, prepareBuild, seedBeforeStart, type Build } from './builds';
import { COMPARED, compareTable, writeComparison, type CompareReport, type Compared, type Measure } from './compare-report';

/** `new`: a commit to measure instead of the working tree (built like `against`; the same commit twice: the noise floor). */
export type CompareOptions = Omit<BenchOptions, 'growth' | 'rounds'> & { against: string; new?: string; rounds: number; scenarios: Compared[] };

const OPERATOR_TOKEN = `op_bench_${randomBytes(16).toString('hex')}`;
const MP_KEY = 'bench-marketplace-private-key-0123456789';
const MP_IN_URL = 'http://bench.invalid/marketplace';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LABELS = { postgres: 'PostgreSQL', embedded: 'embedded PGlite (on disk)' } as const;

type Admin = ReturnType<typeof makeKnex>;

/**
 * The work done so far: CPU time of the service and of the database (PostgreSQL's processes; the embedded one is the
 * service's), and on PostgreSQL the write-ahead log's insert position. The WAL a run writes ÷ its responses is what
 * each request wrote (rows, index entries, page images): unlike time, it does not move with the machine's load.
 */
async function workNow(pid: number, admin: Admin | undefined) {
  const wal = admin ? ((await admin.raw('select pg_current_wal_insert_lsn()::text as lsn')) as { rows: Array<{ lsn: string }> }).rows[0].lsn : undefined;
  return { service: cpuMicros(pid), database: admin ? postgresCpuMicros() : 0, wal };
}
type Work = Awaited<ReturnType<typeof workNow>>;

/** Bytes of WAL between two insert positions (`16/B374D4D8`: the high and low 32 bits, in hex). */
function walBetween(before: Work, after: Work): number | undefined {
  if (!before.wal || !after.wal) return undefined;
  const bytes = (lsn: string) => lsn.split('/').reduce((n, part) => n * 2 ** 32 + parseInt(part, 16), 0);
  return bytes(after.wal) - bytes(before.wal);
}

function measure(o: LoadOutcome, before: Work, after: Work, walBytes: number | undefined): Measure {
  const m = o.measured;
  const unexpected = m.unexpected + o.warmup.unexpected;
  const requests = Math.max(1, m.responses + o.warmup.responses);
  return {
    requestsPerSec: Math.round((m.responses / m.durationSec) * 10) / 10,
    p50Ms: m.latencyMs.p50,
    p99Ms: m.latencyMs.p99,
    serviceCpuUs: Math.round((after.service - before.service) / requests),
    databaseCpuUs: Math.round((after.database - before.database) / requests),
    ...(walBytes === undefined ? {} : { databaseWalBytes: Math.round(walBytes / requests) }),
    ok: unexpected === 0 && m.errors === 0 && m.responses > 0,
    ...(unexpected || m.errors
      ? {
          note: `${unexpected} unexpected, ${m.errors} errors${m.sampleUnexpected ? `, e.g. ${m.sampleUnexpected.status} ${m.sampleUnexpected.body.slice(0, 160)}` : ''}`,
        }
      : {}),
  };
}

/** A fresh database for one round of one build: a schema of its own on PostgreSQL, a directory of its own embedded. */
async function freshStore(kind: 'postgres' | 'embedded', opts: CompareOptions): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  if (kind === 'embedded') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-bench-'));
    return { env: { DATA_DIR: dir }, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  return {
    env: { DATABASE_URL: opts.databaseUrl, DATABASE_SCHEMA: schema },
    cleanup: async () => {
      const admin = makeKnex(loadConfig({ DATABASE_URL: opts.databaseUrl, LOG_LEVEL: 'silent' }));
      try {
        await admin.raw('drop schema if exists ?? cascade', [schema]);
      } finally {
        await admin.destroy();
      }
    },
  };
}

/** A build's service for one round: a fresh database seeded by the build's own code, a partner and a live key. */
interface Session {
  build: Build;
  url: string;
  pid: number;
  auth: Record<string, string>;
  json: Record<string, string>;
  /** What the scenarios have measured and set up so far, this round. */
  done: Partial<Record<Compared, Measure>>;
  booking?: { body: Record<string, unknown>; key: string; ref: string };
  stop(): Promise<void>;
}

async function open(build: Build, kind: 'postgres' | 'embedded', opts: CompareOptions): Promise<Session> {
  const store = await freshStore(kind, opts);
  let svc: Awaited<ReturnType<typeof startService>> | undefined;
  const stop = async () => {
    await svc?.stop();
    await store.cleanup();
  };
  try {
    await seedBeforeStart(build, store.env);
    svc = await startService(
      { ...store.env, OPERATOR_TOKEN, MARKETPLACE_PRIVATE_KEY: MP_KEY, MARKETPLACE_IN_URL: MP_IN_URL, ...serviceNodeOptions(kind) },
      build.root,
    );
    const ops = { Authorization: `Bearer ${OPERATOR_TOKEN}` };
    const partner = await call(`${svc.url}/ops/v1/partners`, { method: 'POST', headers: ops, body: { name: 'Bench Partner' } });
    if (partner.status !== 201) throw new Error(`partner set-up: ${partner.status} ${partner.text.slice(0, 300)}`);
    const key = await call(`${svc.url}/ops/v1/partners/${partner.body.partner_id as string}/keys`, {
      method: 'POST',
      headers: ops,
      body: { env: 'production' },
    });
    if (key.status !== 201) throw new Error(`key set-up: ${key.status} ${key.text.slice(0, 300)}`);
    const auth = { Authorization: `Bearer ${key.body.key as string}` };
    return { build, url: svc.url, pid: svc.pid, auth, json: { ...auth, 'Content-Type': 'application/json' }, done: {}, stop };
  } catch (e) {
    await stop();
    throw new Error(`${build.role} build ${build.label}: ${(e as Error).message}`);
  }
}

/** The booking replay and read work on: made once per session, by whichever of them runs first. */
async function oneBooking(s: Session): Promise<NonNullable<Session['booking']>> {
  if (s.booking) return s.booking;
  const [offer] = await offerPool(s.url, s.json, 1);
  const key = `bench-replay-${randomBytes(4).toString('hex')}`;
  const body = { quote_id: offer[0], offer_id: offer[1], partner_reference: key, ...BOOKING_TEMPLATE };
  const first = await call(`${s.url}/transfers/v1/bookings`, { method: 'POST', headers: { ...s.auth, 'Idempotency-Key': key }, body });
  if (first.status !== 201) throw new Error(`booking set-up: ${first.status} ${first.text.slice(0, 300)}`);
  s.booking = { body, key, ref: first.body.booking_ref as string };
  return s.booking;
}

/** Each scenario's load, set up on a session (the same requests for either build). */
const SPECS: Record<Compared, (s: Session, opts: CompareOptions) => Promise<Omit<LoadSpec, 'origin' | 'connections' | 'warmupSeconds' | 'seconds'>>> = {
  ping: async (s) => ({ method: 'GET', path: '/transfers/v1/ping', headers: s.auth, expect: { status: 200, bodyIncludes: '"ok":true' } }),
  quote: async (s) => ({
    method: 'POST',
    path: '/transfers/v1/quotes',
    headers: s.json,
    body: JSON.stringify(QUOTE_BODY()),
    expect: { status: 200, bodyIncludes: '"declined":null' },
  }),
  booking: async (s, opts) => {
    const wanted = Math.ceil((s.done.quote?.requestsPerSec ?? 1000) * (opts.seconds + opts.warmupSeconds) * 1.3) + 200;
    return {
      method: 'POST',
      path: '/transfers/v1/bookings',
      headers: s.json,
      bookings: { pool: await offerPool(s.url, s.json, wanted), template: BOOKING_TEMPLATE, prefix: `BENCH-${randomBytes(3).toString('hex')}` },
      expect: { status: 201, bodyIncludes: '"status":"confirmed"' },
    };
  },
  replay: async (s) => {
    const { body, key } = await oneBooking(s);
    return {
      method: 'POST',
      path: '/transfers/v1/bookings',
      headers: { ...s.json, 'Idempotency-Key': key },
      body: JSON.stringify(body),
      expect: { status: 200, header: { name: 'Idempotent-Replayed', value: 'true' } },
    };
  },
  read: async (s) => {
    const { ref } = await oneBooking(s);
    return { method: 'GET', path: `/transfers/v1/bookings/${ref}`, headers: s.auth, expect: { status: 200, bodyIncludes: `"booking_ref":"${ref}"` } };
  },
  search: async () => {
    const raw = JSON.stringify(SEARCH_BODY());
    const signature = signMarketplaceRequest(`${MP_IN_URL}/search/`, raw, MP_KEY);
    return {
      method: 'POST',
      path: '/marketplace/search/',
      headers: { 'Content-Type': 'application/json', PrivateKey: signature },
      body: raw,
      expect: { status: 200, bodyIncludes: '"price_mark"' },
    };
  },
};

/**
 * One round: both builds' services, each on a fresh database, then every scenario on the new build and at once on
 * the old one (new, old, new, old…), so that the two runs of a scenario in a round are back to back.
 */
async function round(builds: Build[], kind: 'postgres' | 'embedded', opts: CompareOptions, tag: string, log: (line: string) => void): Promise<Session[]> {
  log(`${tag} fresh databases, starting both services…`);
  const sessions: Session[] = [];
  const admin = kind === 'postgres' ? makeKnex(loadConfig({ DATABASE_URL: opts.databaseUrl, LOG_LEVEL: 'silent' })) : undefined;
  try {
    for (const b of builds) sessions.push(await open(b, kind, opts));
    for (const id of opts.scenarios) {
      for (const s of sessions) {
        const spec = await SPECS[id](s, opts).catch((e: Error) => {
          throw new Error(`${s.build.role} build ${s.build.label}, ${id}: ${e.message}`);
        });
        const before = await workNow(s.pid, admin);
        const outcome = await runLoad({ ...spec, origin: s.url, connections: opts.connections, warmupSeconds: opts.warmupSeconds, seconds: opts.seconds });
        const after = await workNow(s.pid, admin);
        const m = measure(outcome, before, after, walBetween(before, after));
        s.done[id] = m;
        log(
          `${tag} ${s.build.role} ${s.build.label.padEnd(13)} ${id.padEnd(8)} ${fmtInt(m.requestsPerSec).padStart(6)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(6)} ms  p99 ${m.p99Ms.toFixed(2).padStart(7)} ms  CPU/req service ${String(m.serviceCpuUs).padStart(5)} µs db ${String(m.databaseCpuUs).padStart(5)} µs${m.databaseWalBytes === undefined ? '' : `  WAL/req ${fmtInt(m.databaseWalBytes).padStart(6)} B`}${m.ok ? '' : `  FAILED: ${m.note}`}`,
        );
        await sleep(300);
      }
    }
    return sessions;
  } finally {
    for (const s of sessions) await s.stop();
    await admin?.destroy();
  }
}

async function postgresVersion(url: string): Promise<string> {
  const admin = makeKnex(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
  try {
    return String(((await admin.raw('show server_version')) as { rows: Array<{ server_version: string }> }).rows[0].server_version);
  } finally {
    await admin.destroy();
  }
}

/** The whole comparison; resolves with the process's exit code. */
export async function runComparison(opts: CompareOptions, log: (line: string) => void = console.log): Promise<number> {
  const t0 = Date.now();
  let fresh: Build;
  let old: Build;
  try {
    fresh = opts.new === undefined ? currentBuild() : await prepareBuild(opts.new, log, 'new');
    old = await prepareBuild(opts.against, log);
  } catch (e) {
    if (!(e instanceof BuildError)) throw e;
    log(`\nbench --against: ${e.message}`);
    return 2;
  }
  const builds = [fresh, old];
  const postgres = opts.databases.includes('postgres') ? await postgresVersion(opts.databaseUrl) : 'not used';
  const perRun = opts.warmupSeconds + opts.seconds + 0.5;
  const estimate = opts.databases.length * opts.rounds * builds.length * (opts.scenarios.length * perRun + 8);
  log(
    `\n== new ${fresh.label} against old ${old.label}: ${opts.rounds} rounds, alternately (new, old, …), on ${opts.databases.map((d) => LABELS[d]).join(' and ')}; ` +
      `${opts.connections} connections, ${opts.warmupSeconds} s warm-up + ${opts.seconds} s measured per scenario; about ${Math.ceil(estimate / 60)} min ==`,
  );
  const results: CompareReport['databases'] = [];
  for (const kind of opts.databases) {
    const rounds: CompareReport['databases'][number]['rounds'] = { new: [], old: [] };
    for (let i = 1; i <= opts.rounds; i += 1) {
      const sessions = await round(builds, kind, opts, `[${LABELS[kind]} · round ${i}/${opts.rounds}]`, log);
      for (const s of sessions) rounds[s.build.role].push(s.done);
    }
    results.push({ database: kind, label: LABELS[kind], rounds });
  }
  const report: CompareReport = {
    generatedAt: new Date().toISOString(),
    new: { label: fresh.label, commit: fresh.commit },
    old: { label: old.label, commit: old.commit },
    settings: {
      rounds: opts.rounds,
      seconds: opts.seconds,
      warmupSeconds: opts.warmupSeconds,
      connections: opts.connections,
      databases: opts.databases,
      ...(opts.scenarios.length < COMPARED.length ? { scenarios: opts.scenarios } : {}),
    },
    machine: { cpus: os.availableParallelism(), cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown', node: process.version, postgres },
    databases: results,
    minutes: Math.round((Date.now() - t0) / 6000) / 10,
    ...(opts.new !== undefined ? { newRef: fresh.label } : {}),
  };
  const { ok, files } = writeComparison(report);
  log(`\n${compareTable(report)}`);
  log(`\nwritten: ${files.map((f) => path.relative(process.cwd(), f)).join(', ')} (${report.minutes} min)`);
  return ok ? 0 : 1;
}
