/**
 * The fault suite runs the service as `npm start` runs it: `node dist/src/main.js` in its own process (built by
 * `npm run build` before the suite), configured by environment only, on PostgreSQL (a fresh schema) or on an
 * embedded database directory. Faults are real: kill -9, a TCP proxy cut in front of PostgreSQL, SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { makeKnex } from '../../src/data/knex';
import { testConfig } from '../support/test-app';

export const ROOT = path.resolve(__dirname, '../..');
export const MAIN = path.join(ROOT, 'dist/src/main.js');
export const OPERATOR_TOKEN = 'op_fault_suite_operator_token_01';
/** `FAULTS_SHORT=1` (CI): shorter loads, fewer orders; the same faults and checks. */
export const SHORT = process.env.FAULTS_SHORT === '1';
export const PG_URL = process.env.DATABASE_URL;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ServiceProcess {
  url: string;
  port: number;
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/**
 * The services a test file started and has not seen exit. A test that fails before stopping its service must not
 * leave it running: Jest would wait for it forever ("did not exit one second after the test run"), and CI with it.
 */
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const proc of running) proc.kill('SIGKILL');
});

/** Starts `node dist/src/main.js` with this environment and waits for it to listen. */
export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first (npm run test:faults does)`);
  const proc = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      OPERATOR_TOKEN,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  running.add(proc);
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      running.delete(proc);
      resolve(code);
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start within 60 s:\n${out}`)), 60_000);
    const check = () => {
      const m = /listening on port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`service exited (${code}) before listening:\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    proc,
    output: () => out,
    exited,
    stop: async () => {
      proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** A fresh schema on the PostgreSQL server; the service migrates it on start. */
export async function pgSchema(url = PG_URL!): Promise<{ env: Record<string, string>; knex: Knex; drop(): Promise<void> }> {
  const schema = `fault_${randomBytes(5).toString('hex')}`;
  const knex = makeKnex(testConfig({ DATABASE_URL: url, DATABASE_SCHEMA: schema }));
  await knex.raw('create schema ??', [schema]);
  return {
    env: { DATABASE_URL: url, DATABASE_SCHEMA: schema },
    knex,
    drop: async () => {
      await knex.raw('drop schema if exists ?? cascade', [schema]);
      await knex.destroy();
    },
  };
}

/** A fresh embedded-database directory. */
export function dataDir(): { env: Record<string, string>; dir: string; drop(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-fault-'));
  return { env: { DATA_DIR: dir }, dir, drop: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface Reply {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

export async function call(
  base: string,
  method: string,
  p: string,
  opts: { key?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${base}${p}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, text, body, headers: res.headers };
}

/** A partner with a key in `env`, through the operator API. */
export async function partnerKey(base: string, env: 'sandbox' | 'production' = 'production') {
  const p = await call(base, 'POST', '/ops/v1/partners', { token: OPERATOR_TOKEN, body: { name: `Fault Partner ${randomBytes(3).toString('hex')}` } });
  if (p.status !== 201) throw new Error(`create partner: ${p.status} ${p.text}`);
  const k = await call(base, 'POST', `/ops/v1/partners/${p.body.partner_id}/keys`, { token: OPERATOR_TOKEN, body: { env } });
  if (k.status !== 201) throw new Error(`create key: ${k.status} ${k.text}`);
  return { partnerId: p.body.partner_id as string, key: k.body.key as string };
}

// Each quote its own pickup: a day apart over the next 350 days, then the same days six hours later (a job from Kandy
// to Galle holds its vehicle under six hours). The embedded service seeds a demo fleet, and production bookings
// must not be refused for capacity here (fleet_full has its own tests).
let pickups = 0;
const PICKUP = () => {
  const n = pickups++;
  const day = new Date(Date.now() + (5 + (n % 350)) * 24 * 3600 * 1000).toISOString().slice(0, 10);
  const hour = (3 + 6 * Math.floor(n / 350)) % 24;
  return `${day}T${String(hour).padStart(2, '0')}:30:00+05:30`;
};
export const quoteBody = () => ({ pickup: { name: 'Kandy' }, dropoff: { name: 'Galle' }, pickup_datetime: PICKUP(), passengers: { adults: 2, luggage: 1 } });

export interface Attempt {
  key: string;
  body: { quote_id: string; offer_id: string; partner_reference: string; [k: string]: unknown };
  /** The answer, or undefined when none arrived (the process died, the connection dropped). */
  reply?: Reply;
  error?: string;
  at: number;
}

/**
 * Booking load: `concurrency` workers, each quoting then booking with its own Idempotency-Key and reference,
 * until stopped (or until the service stops answering). Every attempt is recorded with what came back.
 */
export function bookingLoad(base: () => string, key: string, concurrency: number) {
  const attempts: Attempt[] = [];
  /** Quotes answered 503 (with their Retry-After), e.g. while the database is away. */
  const quotesRefused: Array<{ retryAfter: string | null }> = [];
  let running = true;
  let seq = 0;
  // A worker gives up only when the service stops answering at all (20 connection failures in a row).
  const worker = async (w: number) => {
    let failures = 0;
    while (running && failures < 20) {
      let quote: Reply;
      try {
        quote = await call(base(), 'POST', '/transfers/v1/quotes', { key, body: quoteBody() });
      } catch {
        failures += 1;
        await sleep(50);
        continue;
      }
      failures = 0;
      if (quote.status === 503) quotesRefused.push({ retryAfter: quote.headers.get('retry-after') });
      const offer = quote.body?.offers?.[0];
      if (!offer) {
        await sleep(quote.status >= 500 ? 100 : 20);
        continue;
      }
      seq += 1;
      const attempt: Attempt = {
        key: `fault-${w}-${seq}-${randomBytes(3).toString('hex')}`,
        body: {
          quote_id: quote.body.quote_id,
          offer_id: offer.offer_id,
          partner_reference: `F-${w}-${seq}`,
          passenger: { first_name: 'Ayesha', last_name: 'Perera' },
          passengers: { adults: 2, luggage: 1 },
        },
        at: Date.now(),
      };
      attempts.push(attempt);
      try {
        attempt.reply = await call(base(), 'POST', '/transfers/v1/bookings', { key, body: attempt.body, headers: { 'Idempotency-Key': attempt.key } });
        failures = 0;
      } catch (e) {
        attempt.error = String((e as { cause?: { code?: string } }).cause?.code ?? e);
        failures += 1;
      }
    }
  };
  const workers = Array.from({ length: concurrency }, (_, w) => worker(w));
  return {
    attempts,
    quotesRefused,
    stop: async () => {
      running = false;
      await Promise.all(workers);
      return attempts;
    },
  };
}

/** An HTTP proxy that sends each request to the next upstream in turn. */
export async function roundRobin(upstreams: string[]): Promise<{ url: string; close(): Promise<void>; served: number[] }> {
  let next = 0;
  const served = upstreams.map(() => 0);
  const server = http.createServer((req, res) => {
    const i = next++ % upstreams.length;
    served[i] += 1;
    const target = new URL(req.url ?? '/', upstreams[i]);
    const up = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Polls `check` until it returns true or `ms` pass. */
export async function waitUntil(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

export interface Verified {
  attempts: number;
  acknowledged: number;
  /** Attempts whose answer was lost (in flight at the fault) or a 503, settled afterwards by replaying them. */
  settledByReplay: number;
  problems: string[];
}

/**
 * After a fault: every acknowledged booking (201) reads back as it was answered and replays byte for byte, with its
 * audit row; every attempt whose answer was lost or refused (503) is settled by retrying it with the same key and
 * body — the first retry books it (201) or replays what was committed (200). Nothing else is acceptable.
 */
export async function verifyBookings(base: string, key: string, attempts: Attempt[]): Promise<Verified> {
  const problems: string[] = [];
  let acknowledged = 0;
  let settled = 0;
  for (const a of attempts) {
    const status = a.reply?.status;
    if (status === 201) {
      acknowledged += 1;
      const ref = a.reply!.body.booking_ref;
      const read = await call(base, 'GET', `/transfers/v1/bookings/${ref}`, { key });
      if (read.status !== 200 || JSON.stringify(read.body) !== JSON.stringify(a.reply!.body)) problems.push(`${ref}: read back ${read.status}`);
      const replay = await call(base, 'POST', '/transfers/v1/bookings', { key, body: a.body, headers: { 'Idempotency-Key': a.key } });
      if (replay.status !== 200 || replay.headers.get('idempotent-replayed') !== 'true' || replay.text !== a.reply!.text)
        problems.push(`${ref}: replay ${replay.status}`);
      const audit = await call(base, 'GET', `/ops/v1/audit?request_id=${a.reply!.headers.get('x-request-id')}`, { token: OPERATOR_TOKEN });
      if (!audit.body?.data?.some((r: { status: number }) => r.status === 201)) problems.push(`${ref}: no audit row for its 201`);
    } else if (status === undefined || status === 503) {
      if (status === 503 && !a.reply!.headers.get('retry-after')) problems.push(`${a.key}: 503 without Retry-After`);
      const retry = await call(base, 'POST', '/transfers/v1/bookings', { key, body: a.body, headers: { 'Idempotency-Key': a.key } });
      if (retry.status === 201 || (retry.status === 200 && retry.headers.get('idempotent-replayed') === 'true')) settled += 1;
      else problems.push(`${a.key}: retry after the fault answered ${retry.status} ${retry.text.slice(0, 200)}`);
    } else {
      problems.push(`${a.key}: answered ${status} ${a.reply!.text.slice(0, 200)}`);
    }
  }
  return { attempts: attempts.length, acknowledged, settledByReplay: settled, problems };
}

/** No offer booked twice, and every booking with its job and a 201 audit row (checked in the database). */
export async function databaseInvariants(knex: Knex): Promise<string[]> {
  const problems: string[] = [];
  const doubled = await knex('bookings').select('offer_id').count({ n: '*' }).groupBy('offer_id').havingRaw('count(*) > 1');
  if (doubled.length) problems.push(`offers booked twice: ${JSON.stringify(doubled)}`);
  const jobless = await knex.raw(
    `select b.booking_ref from bookings b where not exists (select 1 from jobs j where j.source = 'partner_booking' and j.source_ref = b.booking_ref)`,
  );
  if (jobless.rows.length) problems.push(`bookings without a job: ${JSON.stringify(jobless.rows)}`);
  const unaudited = await knex.raw(
    `select b.booking_ref from bookings b where not exists (select 1 from audit_log a where a.request_id = b.request_id and a.status in (200, 201))`,
  );
  if (unaudited.rows.length) problems.push(`bookings without their audit row: ${JSON.stringify(unaudited.rows)}`);
  const pending = await knex('idempotency_keys').whereNull('response_status');
  if (pending.length) problems.push(`idempotency keys left without an outcome: ${pending.length}`);
  return problems;
}

export const MP_KEY = 'fault-marketplace-private-key-0123456789';
export const MP_TOKEN = 'fault-callback-token-0123456789abcdef';
export const MP_IN_URL = 'https://supplier.example.lk/marketplace';

/** The service's marketplace settings, pointed at a simulator. */
export const marketplaceEnv = (simUrl: string): Record<string, string> => ({
  MARKETPLACE_URL: simUrl,
  MARKETPLACE_USER_ID: '1001',
  MARKETPLACE_PRIVATE_KEY: MP_KEY,
  MARKETPLACE_CALLBACK_TOKEN: MP_TOKEN,
  MARKETPLACE_IN_URL: MP_IN_URL,
  OUTBOX_POLL_MS: '200',
  OUTBOX_RETRY_BASE_MS: '300',
});

/** The marketplace's local time N days from now ("YYYY-MM-DD HH:MM:SS", Sri Lanka). */
export const localInDays = (days: number) => new Date(Date.now() + days * 86400_000 + 5.5 * 3600_000).toISOString().replace('T', ' ').slice(0, 11) + '07:00:00';

export async function sim(base: string, method: string, p: string, body?: unknown) {
  const r = await fetch(`${base}/__sim${p}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return r.json() as Promise<any>;
}
