/**
 * End-to-end HTTP benchmark on a real PostgreSQL, in one run:
 *   1. baseline: a bare Express 5 app with one JSON echo route (what Node + Express cost on this machine);
 *   2. POST /transfers/v1/quotes (CMB → Kandy, pickup days ahead): auth, contract validation, quoting, quote + offers
 *      + audit row written in one transaction;
 *   3. POST /transfers/v1/bookings, every request a fresh booking of its own unused offer (distinct offer,
 *      partner_reference and Idempotency-Key); only 201s count as bookings;
 *   4. POST /transfers/v1/bookings replaying one Idempotency-Key with the same body (200 + Idempotent-Replayed).
 *
 * Both servers run in this process (the service through startServer, logger silent, NODE_ENV=production); the
 * load generator (autocannon) runs in a child process (bench/load-generator.ts) so it does not share the
 * service's event loop, only the machine. Traffic goes to 127.0.0.1 only. A fresh schema bench_<random> is
 * created with the service's migrations and dropped at the end.
 *
 *   npm run build && node dist/bench/http.bench.js        (or: npm run bench, which also runs the engine bench)
 *
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_SECONDS (measured
 * seconds per scenario, default 5), BENCH_WARMUP_SECONDS (default 2), BENCH_CONNECTIONS (default 10).
 * Writes bench/results/latest.md and bench/results/latest.json. Exits 1 when a check fails.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Knex } from 'knex';
import { loadConfig } from '../src/config/env';
import { makeKnex, migrateLatest } from '../src/data/knex';
import { startServer, type RunningServer } from '../src/server';
import { systemClock } from '../src/shared/clock';
import type { Expectation, LoadOutcome, LoadSpec } from './load-generator';

const REPO_ROOT = path.resolve(__dirname, '../..');
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');

export interface HttpBenchOptions {
  databaseUrl: string;
  seconds: number;
  warmupSeconds: number;
  connections: number;
}

function positiveNumber(name: string, fallback: number, integer = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${raw}`);
  return n;
}

export function optionsFromEnv(): HttpBenchOptions {
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const host = new URL(databaseUrl).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) {
    throw new Error(`BENCH_DATABASE_URL must point at a local PostgreSQL (127.0.0.1), got host ${host}`);
  }
  return {
    databaseUrl,
    seconds: positiveNumber('BENCH_SECONDS', 5),
    warmupSeconds: positiveNumber('BENCH_WARMUP_SECONDS', 2),
    connections: positiveNumber('BENCH_CONNECTIONS', 10, true),
  };
}

export interface ScenarioResult {
  id: 'echo' | 'quote' | 'booking' | 'replay';
  name: string;
  endpoint: string;
  requestsPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  responses: number;
  durationSec: number;
  statusCounts: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  expectation: string;
  expected: number;
  unexpected: number;
  ok: boolean;
  check: string;
  warmup: { responses: number; unexpected: number };
  sampleUnexpected?: { status: number; body: string };
}

export interface HttpBenchReport {
  generatedAt: string;
  commit: string | null;
  settings: HttpBenchOptions & { databaseUrl: string; nodeEnv: string; logLevel: string; dbPoolMax: number; loadGenerator: string };
  machine: { cpus: number; cpuModel: string; node: string; os: string; postgres: string };
  scenarios: ScenarioResult[];
  checks: Array<{ name: string; ok: boolean; detail: string }>;
  notes: string[];
  ok: boolean;
}

// ---------------------------------------------------------------------------------------------------------------

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const fmtInt = (x: number) => Math.round(x).toLocaleString('en-US');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A pickup `days` ahead at 09:30 Sri Lanka time, as the API wants it (local time with offset). */
function pickupInDays(days: number): string {
  const d = new Date(Date.now() + days * 24 * 3600 * 1000);
  return `${d.toISOString().slice(0, 10)}T09:30:00+05:30`;
}

function gitCommit(): string | null {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty ? `${sha}+dirty` : sha;
  } catch {
    return null;
  }
}

/** The baseline: a bare Express 5 app, one JSON echo route, on 127.0.0.1 and a random port. */
async function startEcho(): Promise<{ url: string; stop(): Promise<void> }> {
  const app = express();
  app.post('/echo', express.json(), (req, res) => {
    res.json({ ok: true, echo: req.body as unknown });
  });
  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

async function call(url: string, init: { method: string; headers?: Record<string, string>; body?: unknown }) {
  const res = await fetch(url, {
    method: init.method,
    headers: { ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...(init.headers ?? {}) },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** Children we forked, so an interrupt can end exactly them. */
const children = new Set<ChildProcess>();

/** Runs one scenario in a fresh load-generator process. */
function runLoad(spec: LoadSpec): Promise<LoadOutcome> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'load-generator.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    let settled = false;
    const limitMs = (spec.warmupSeconds + spec.seconds) * 1000 + 60_000;
    const timer = setTimeout(() => {
      finish(new Error(`load generator did not finish within ${limitMs / 1000} s`));
      child.kill('SIGKILL');
    }, limitMs);
    const finish = (err: Error | null, outcome?: LoadOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(outcome!);
    };
    child.on('message', (msg: { type: 'result'; outcome: LoadOutcome } | { type: 'error'; message: string }) => {
      if (msg.type === 'result') finish(null, msg.outcome);
      else finish(new Error(`load generator failed: ${msg.message}`));
    });
    child.on('error', (e) => finish(e));
    child.on('exit', (code, signal) => {
      children.delete(child);
      finish(new Error(`load generator exited (${signal ?? code}) without a result`));
    });
    child.send({ type: 'run', spec });
  });
}

function describeExpectation(e: Expectation): string {
  return [`${e.status}`, e.bodyIncludes ? `body has ${e.bodyIncludes}` : '', e.header ? `${e.header.name}: ${e.header.value}` : ''].filter(Boolean).join(', ');
}

function toScenario(
  meta: Pick<ScenarioResult, 'id' | 'name' | 'endpoint'>,
  spec: LoadSpec,
  o: LoadOutcome,
  check: (m: LoadOutcome['measured']) => { ok: boolean; text: string },
): ScenarioResult {
  const m = o.measured;
  const c = check(m);
  return {
    ...meta,
    requestsPerSec: round(m.responses / m.durationSec, 1),
    p50Ms: m.latencyMs.p50,
    p90Ms: m.latencyMs.p90,
    p99Ms: m.latencyMs.p99,
    maxMs: m.latencyMs.max,
    responses: m.responses,
    durationSec: m.durationSec,
    statusCounts: m.statusCounts,
    non2xx: m.non2xx,
    errors: m.errors,
    timeouts: m.timeouts,
    expectation: describeExpectation(spec.expect),
    expected: m.expected,
    unexpected: m.unexpected,
    ok: c.ok && o.warmup.unexpected === 0,
    check: c.text + (o.warmup.unexpected ? `; ${o.warmup.unexpected} unexpected in warm-up` : ''),
    warmup: { responses: o.warmup.responses, unexpected: o.warmup.unexpected },
    ...(m.sampleUnexpected ? { sampleUnexpected: m.sampleUnexpected } : o.warmup.sampleUnexpected ? { sampleUnexpected: o.warmup.sampleUnexpected } : {}),
  };
}

const allExpected = (m: LoadOutcome['measured']) => m.unexpected === 0 && m.errors === 0 && m.responses > 0;

async function auditCounts(db: Knex, partnerId: string): Promise<Map<string, number>> {
  const rows = (await db('audit_log')
    .where({ partnerId, direction: 'inbound' })
    .select('path', 'status')
    .count({ n: '*' })
    .groupBy('path', 'status')) as Array<{ path: string; status: number; n: string | number }>;
  return new Map(rows.map((r) => [`${r.path} ${r.status}`, Number(r.n)]));
}

// ---------------------------------------------------------------------------------------------------------------

export async function runHttpBench(opts: HttpBenchOptions = optionsFromEnv(), log: (line: string) => void = console.log): Promise<HttpBenchReport> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const operatorToken = `op_bench_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: 'memory://',
    OPERATOR_TOKEN: operatorToken,
    LOG_LEVEL: 'silent',
    DATABASE_URL: opts.databaseUrl,
    DATABASE_SCHEMA: schema,
  });
  const db = makeKnex(config);
  let schemaCreated = false;
  let echo: Awaited<ReturnType<typeof startEcho>> | undefined;
  let service: RunningServer | undefined;

  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const c of children) c.kill('SIGKILL');
      await service?.stop().catch(() => undefined);
      await echo?.stop().catch(() => undefined);
      if (schemaCreated) await db.raw('drop schema if exists ?? cascade', [schema]).catch((e: Error) => log(`could not drop schema ${schema}: ${e.message}`));
      await db.destroy().catch(() => undefined);
    })());
  const onSignal = (sig: NodeJS.Signals) => {
    log(`\n${sig}: stopping, dropping schema ${schema}`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const postgres = String(((await db.raw('show server_version')) as { rows: Array<{ server_version: string }> }).rows[0].server_version);
    schemaCreated = true;
    await migrateLatest(db, schema);
    echo = await startEcho();
    service = await startServer({ config, db, clock: systemClock });
    const svc = service.url;
    log(`http bench: PostgreSQL ${postgres}, schema ${schema}; service ${svc}, echo ${echo.url}; ${opts.connections} connections, ${opts.warmupSeconds} s warm-up + ${opts.seconds} s measured per scenario`);

    // A partner and a production key, through the operator API like an operator would.
    const opHeaders = { Authorization: `Bearer ${operatorToken}` };
    const p = await call(`${svc}/ops/v1/partners`, { method: 'POST', headers: opHeaders, body: { name: 'Bench Partner' } });
    if (p.status !== 201) throw new Error(`create partner: ${p.status} ${p.text}`);
    const partnerId = p.body.partner_id as string;
    const k = await call(`${svc}/ops/v1/partners/${partnerId}/keys`, { method: 'POST', headers: opHeaders, body: { env: 'production' } });
    if (k.status !== 201) throw new Error(`create key: ${k.status} ${k.text}`);
    const auth = { Authorization: `Bearer ${k.body.key as string}` };
    const jsonHeaders = { ...auth, 'Content-Type': 'application/json' };

    const quoteBody = { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: pickupInDays(3), passengers: { adults: 2, luggage: 2 } };
    const probe = await call(`${svc}/transfers/v1/quotes`, { method: 'POST', headers: auth, body: quoteBody });
    if (probe.status !== 200 || probe.body?.declined !== null || !probe.body?.offers?.length) throw new Error(`probe quote: ${probe.status} ${probe.text.slice(0, 500)}`);
    const offersPerQuote = (probe.body.offers as unknown[]).length;
    log(`probe quote CMB → Kandy: ${offersPerQuote} offers, ${probe.body.route.distance_km} km`);

    const base = { origin: '', method: 'POST' as const, connections: opts.connections, warmupSeconds: opts.warmupSeconds, seconds: opts.seconds };
    const scenarios: ScenarioResult[] = [];
    const checks: HttpBenchReport['checks'] = [];
    const notes: string[] = [];
    const report = (s: ScenarioResult) => {
      scenarios.push(s);
      log(`  ${s.name.padEnd(38)} ${fmtInt(s.requestsPerSec).padStart(7)} req/s  p50 ${s.p50Ms.toFixed(2).padStart(7)} ms  p99 ${s.p99Ms.toFixed(2).padStart(7)} ms  ${s.check}`);
    };
    const pause = () => sleep(500); // in-flight requests of the previous run finish on the server

    // 1. Baseline
    {
      const spec: LoadSpec = { ...base, origin: echo.url, path: '/echo', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(quoteBody), expect: { status: 200, bodyIncludes: '"ok":true' } };
      const o = await runLoad(spec);
      report(toScenario({ id: 'echo', name: 'Baseline: bare Express 5 JSON echo', endpoint: 'POST /echo' }, spec, o, (m) => ({ ok: allExpected(m), text: m.unexpected ? `${m.unexpected} unexpected` : 'all 200' })));
    }
    await pause();

    // 2. Quotes
    const auditBefore = await auditCounts(db, partnerId);
    {
      const spec: LoadSpec = { ...base, origin: svc, path: '/transfers/v1/quotes', headers: jsonHeaders, body: JSON.stringify(quoteBody), expect: { status: 200, bodyIncludes: '"declined":null' } };
      const o = await runLoad(spec);
      report(toScenario({ id: 'quote', name: 'Quote (CMB → Kandy)', endpoint: 'POST /transfers/v1/quotes' }, spec, o, (m) => ({
        ok: allExpected(m),
        text: m.unexpected ? `${m.unexpected} not 200 with offers` : `all 200 with ${offersPerQuote} offers`,
      })));
    }
    await pause();

    // 3. Fresh bookings. The pool: every unbooked, unexpired offer of this partner (the quote run above made
    // thousands), interleaved so that consecutive bookings hit different quotes; topped up if ever short.
    const harvest = async () => {
      const rows = (await db('offers as o')
        .leftJoin('bookings as b', 'b.offer_id', 'o.offer_id')
        .where({ 'o.partner_id': partnerId, 'o.env': 'production' })
        .whereNull('b.offer_id')
        .where('o.expires_at', '>', new Date(Date.now() + 10 * 60 * 1000))
        .orderBy([{ column: 'o.quote_id' }, { column: 'o.position' }])
        .select('o.quote_id', 'o.offer_id')) as Array<{ quoteId: string; offerId: string }>;
      const byQuote = new Map<string, string[]>();
      for (const r of rows) (byQuote.get(r.quoteId) ?? byQuote.set(r.quoteId, []).get(r.quoteId)!).push(r.offerId);
      const lists = [...byQuote.entries()];
      const pool: Array<[string, string]> = [];
      for (let i = 0; pool.length < rows.length; i++) for (const [q, offers] of lists) if (i < offers.length) pool.push([q, offers[i]]);
      return pool;
    };
    const minPool = Math.max(2_000, opts.connections * 100);
    let pool = await harvest();
    if (pool.length < minPool) {
      const quotesNeeded = Math.ceil((minPool - pool.length) / offersPerQuote);
      log(`  topping up the offer pool: ${quotesNeeded} more quotes`);
      for (let i = 0; i < quotesNeeded; i += 10) {
        await Promise.all(Array.from({ length: Math.min(10, quotesNeeded - i) }, () => call(`${svc}/transfers/v1/quotes`, { method: 'POST', headers: auth, body: quoteBody })));
      }
      pool = await harvest();
    }
    const replayOffer = pool.pop()!;
    const bookingTemplate = {
      passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
      passengers: { adults: 2, luggage: 2 },
      flight_number: 'UL504',
    };
    const countBookings = async () => Number(((await db('bookings').where({ partnerId }).count({ n: '*' })) as Array<{ n: string | number }>)[0].n);
    {
      const bookingsBefore = await countBookings();
      const prefix = `BENCH-${randomBytes(3).toString('hex')}`;
      const spec: LoadSpec = {
        ...base,
        origin: svc,
        path: '/transfers/v1/bookings',
        headers: jsonHeaders,
        bookings: { pool, template: bookingTemplate, prefix },
        expect: { status: 201, bodyIncludes: '"status":"confirmed"' },
      };
      const o = await runLoad(spec);
      await pause();
      const made = (await countBookings()) - bookingsBefore;
      const m = o.measured;
      const created = m.statusCounts['201'] ?? 0;
      const cut = m.durationSec < opts.seconds - 0.5;
      const s = toScenario({ id: 'booking', name: 'Booking (fresh offer each)', endpoint: 'POST /transfers/v1/bookings' }, spec, o, () => ({
        ok: allExpected(m) && !cut && (o.poolExhausted ?? 0) === 0,
        text: (m.unexpected ? `${m.unexpected} not 201; ` : 'all 201; ') + `${fmtInt(created / m.durationSec)} bookings/s`,
      }));
      report(s);
      // Every 201 the client saw is a row; the rows may exceed them by the requests cut off at the end of each run.
      const cutOff = m.sent - m.responses + (o.warmup.sent - o.warmup.responses);
      const seen = created + (o.warmup.statusCounts['201'] ?? 0);
      checks.push({
        name: 'bookings in the database match the 201s',
        ok: made >= seen && made <= seen + cutOff,
        detail: `${fmtInt(made)} rows for ${fmtInt(seen)} 201s seen (warm-up + measured) and ${cutOff} requests in flight when the runs stopped; pool ${fmtInt(pool.length)} offers, ${fmtInt(o.poolUsed ?? 0)} used`,
      });
      if (cut) notes.push(`The booking run stopped after ${m.durationSec} s: the offer pool (${pool.length}) ran out.`);
    }
    await pause();

    // 4. Idempotent replay of one booking.
    {
      const key = `bench-replay-${randomBytes(4).toString('hex')}`;
      const body = { quote_id: replayOffer[0], offer_id: replayOffer[1], partner_reference: key, ...bookingTemplate };
      const first = await call(`${svc}/transfers/v1/bookings`, { method: 'POST', headers: { ...auth, 'Idempotency-Key': key }, body });
      if (first.status !== 201) throw new Error(`replay set-up booking: ${first.status} ${first.text.slice(0, 500)}`);
      const again = await call(`${svc}/transfers/v1/bookings`, { method: 'POST', headers: { ...auth, 'Idempotency-Key': key }, body });
      if (again.status !== 200 || again.headers.get('idempotent-replayed') !== 'true' || again.text !== first.text) {
        throw new Error(`replay probe: ${again.status} replayed=${again.headers.get('idempotent-replayed')} ${again.text.slice(0, 300)}`);
      }
      const spec: LoadSpec = {
        ...base,
        origin: svc,
        path: '/transfers/v1/bookings',
        headers: { ...jsonHeaders, 'Idempotency-Key': key },
        body: JSON.stringify(body),
        expect: { status: 200, header: { name: 'Idempotent-Replayed', value: 'true' } },
      };
      const o = await runLoad(spec);
      report(toScenario({ id: 'replay', name: 'Booking replay (same Idempotency-Key)', endpoint: 'POST /transfers/v1/bookings' }, spec, o, (m) => ({
        ok: allExpected(m),
        text: m.unexpected ? `${m.unexpected} not 200 + Idempotent-Replayed` : 'all 200 + Idempotent-Replayed: true',
      })));
      const rows = Number(((await db('bookings').where({ offerId: replayOffer[1] }).count({ n: '*' })) as Array<{ n: string | number }>)[0].n);
      checks.push({ name: 'replays book nothing', ok: rows === 1, detail: `${rows} booking row(s) for the replayed offer` });
    }
    await pause();

    // Every request has its audit row (the audit is written in the request's transaction).
    const auditAfter = await auditCounts(db, partnerId);
    const delta = (key: string) => (auditAfter.get(key) ?? 0) - (auditBefore.get(key) ?? 0);
    for (const s of scenarios.filter((x) => x.id !== 'echo')) {
      const status = s.id === 'quote' ? 200 : s.id === 'booking' ? 201 : 200;
      const seen = s.statusCounts[String(status)] ?? 0;
      const rows = s.id === 'replay' ? delta(`/transfers/v1/bookings 200`) : delta(`${s.endpoint.split(' ')[1]} ${status}`);
      checks.push({ name: `audit rows for ${s.name}`, ok: rows >= seen, detail: `${fmtInt(rows)} audit rows (${status}) for ${fmtInt(seen)} measured responses (plus warm-up and set-up requests)` });
    }

    const booking = scenarios.find((s) => s.id === 'booking')!;
    const replay = scenarios.find((s) => s.id === 'replay')!;
    const replaySlower = replay.requestsPerSec < booking.requestsPerSec || replay.p50Ms > booking.p50Ms;
    checks.push({
      name: 'a replay is not slower than a fresh booking',
      ok: !replaySlower,
      detail: `replay ${fmtInt(replay.requestsPerSec)} req/s, p50 ${replay.p50Ms} ms vs booking ${fmtInt(booking.requestsPerSec)} req/s, p50 ${booking.p50Ms} ms`,
    });
    if (replaySlower) notes.push('WARNING: the idempotent replay measured slower than a fresh booking.');

    const ok = scenarios.every((s) => s.ok) && checks.every((c) => c.ok);
    return {
      generatedAt: new Date().toISOString(),
      commit: gitCommit(),
      settings: {
        ...opts,
        databaseUrl: opts.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@'),
        nodeEnv: config.nodeEnv,
        logLevel: config.logLevel,
        dbPoolMax: config.databasePoolMax,
        loadGenerator: 'autocannon 9, one child process, HTTP/1.1 keep-alive, no pipelining',
      },
      machine: {
        cpus: os.availableParallelism(),
        cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
        node: process.version,
        os: `${os.type()} ${os.release()} ${os.arch()}`,
        postgres,
      },
      scenarios,
      checks,
      notes,
      ok,
    };
  } finally {
    await cleanup();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

// ---------------------------------------------------------------------------------------------------------------

export function markdownTable(r: HttpBenchReport): string {
  const head = '| Scenario | Endpoint | req/s | p50 ms | p99 ms | responses | non-2xx | errors | check |\n|---|---|--:|--:|--:|--:|--:|--:|---|';
  const rows = r.scenarios.map(
    (s) =>
      `| ${s.name} | \`${s.endpoint}\` | ${fmtInt(s.requestsPerSec)} | ${s.p50Ms.toFixed(2)} | ${s.p99Ms.toFixed(2)} | ${fmtInt(s.responses)} | ${fmtInt(s.non2xx)} | ${s.errors + s.timeouts} | ${s.ok ? '' : '**FAILED** '}${s.check} |`,
  );
  return [head, ...rows].join('\n');
}

export function markdownReport(r: HttpBenchReport, engine?: { output: string; exitCode: number | null }): string {
  const s = r.settings;
  const lines = [
    '# Benchmark results',
    '',
    `${r.generatedAt.slice(0, 16).replace('T', ' ')} UTC, commit ${r.commit ?? 'unknown'}. Machine: ${r.machine.cpus} cores (${r.machine.cpuModel}), ` +
      `shared by the service, PostgreSQL ${r.machine.postgres} and the load generator; Node ${r.machine.node}, ${r.machine.os}.`,
    '',
    '## HTTP, end to end on PostgreSQL',
    '',
    `${s.connections} connections, ${s.warmupSeconds} s warm-up then ${s.seconds} s measured per row; ${s.loadGenerator}. Service in-process via ` +
      `startServer, NODE_ENV=${s.nodeEnv}, log level ${s.logLevel}, database pool ${s.dbPoolMax}; every service request writes its audit row in its transaction. ` +
      'Latency is client-side (request written → response read), exact percentiles over every measured response.',
    '',
    markdownTable(r),
    '',
    ...r.checks.map((c) => `- ${c.ok ? 'ok' : '**FAILED**'}: ${c.name} — ${c.detail}`),
    ...r.notes.map((n) => `- ${n}`),
  ];
  if (engine) {
    lines.push('', '## Quote engine, in-process (bench/quote-engine.bench.ts)', '', '```', engine.output.trim(), '```');
    if (engine.exitCode !== 0) lines.push('', `(exit code ${engine.exitCode})`);
  }
  lines.push('', 'Reproduce: `npm run bench` (env BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS, BENCH_DATABASE_URL).', '');
  return lines.join('\n');
}

export function writeResults(r: HttpBenchReport, engine?: { output: string; exitCode: number | null }): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const json = {
    ...r,
    ...(engine ? { engine: { exitCode: engine.exitCode, output: engine.output.trim().split('\n') } } : {}),
  };
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.md'), markdownReport(r, engine));
}

async function main(): Promise<void> {
  const r = await runHttpBench();
  console.log(`\n${markdownTable(r)}\n`);
  for (const c of r.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
  for (const n of r.notes) console.log(n);
  writeResults(r);
  console.log(`\nwritten: ${path.relative(process.cwd(), path.join(RESULTS_DIR, 'latest.md'))}, latest.json`);
  if (!r.ok) process.exitCode = 1;
}

if (require.main === module) {
  main().then(
    () => setTimeout(() => process.exit(), 2_000).unref(),
    (e: Error) => {
      console.error(e.stack ?? e);
      process.exit(1);
    },
  );
}
