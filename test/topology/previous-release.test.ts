import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { knex, type Knex } from 'knex';
import { prepareBuild, currentBuild, type Build } from '../../bench/builds';
import { REPO_ROOT } from '../../bench/processes';
import { startWebhookReceiver, type WebhookReceiver } from '../../simulators/partner/webhook-receiver';
import { describeIf, needsPostgres } from '../support/skip';
import { backend } from '../support/test-app';
import { firstOfferBooking } from '../support/bookings';
import { pickupInDays } from '../support/real-clock';

/** The release before this one: PREVIOUS_RELEASE, else the commit deploy/previous-release names. */
const PREVIOUS = process.env.PREVIOUS_RELEASE ?? fs.readFileSync(path.join(REPO_ROOT, 'deploy/previous-release'), 'utf8').split('\n')[0].trim();
const TOKEN = `op_upgrade_${randomBytes(16).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Service {
  url: string;
  child: ChildProcess;
}

/** A build's service, as `npm start` runs it, on `databaseUrl` (its start migrates: nothing to do, or only its own). */
async function serve(build: Build, databaseUrl: string, dataDir: string): Promise<Service> {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: build.root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      OPERATOR_TOKEN: TOKEN,
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${build.label} did not start:\n${out}`)), 60_000);
    const seen = (c: Buffer) => {
      out += c.toString();
      const m = /listening on port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', (code) => reject(new Error(`${build.label} exited (${code}):\n${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function call(base: string, method: string, p: string, o: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const r = await fetch(`${base}${p}`, {
    method,
    headers: { ...(o.key ? { Authorization: `Bearer ${o.key}` } : {}), ...(o.body ? { 'Content-Type': 'application/json' } : {}), ...o.headers },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null };
}

/** Quote, book, read, amend, cancel on `base`: what a partner's integration does on every release. */
async function smoke(base: string, key: string) {
  const q = await call(base, 'POST', '/transfers/v1/quotes', {
    key,
    body: { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: pickupInDays(20), passengers: { adults: 2, luggage: 2 } },
  });
  expect(q.status).toBe(200);
  const reference = `UP-${randomBytes(4).toString('hex')}`;
  const b = await call(base, 'POST', '/transfers/v1/bookings', {
    key,
    headers: { 'Idempotency-Key': reference },
    body: firstOfferBooking(q.body, reference),
  });
  expect(b.status).toBe(201);
  const ref = b.body.booking_ref as string;
  const read = await call(base, 'GET', `/transfers/v1/bookings/${ref}`, { key });
  expect(read.status).toBe(200);
  const amended = await call(base, 'PATCH', `/transfers/v1/bookings/${ref}`, {
    key,
    headers: { 'If-Match': read.headers.get('etag')! },
    body: { notes: 'Sign: Perera' },
  });
  expect(amended.status).toBe(200);
  const cancelled = await call(base, 'POST', `/transfers/v1/bookings/${ref}/cancel`, { key });
  expect(cancelled.status).toBe(200);
  return ref;
}

/**
 * A rolling upgrade, the release before this one (deploy/previous-release) against this one: the previous release
 * serving, then this tree's service starting beside it and applying its migrations, then both serving together. The previous
 * release's smoke flow (quote, book, read, amend, cancel, a webhook delivered) must pass on the new schema, and each
 * release reads what the other wrote.
 */
describeIf(backend === 'postgres', needsPostgres('two builds share one PostgreSQL database'))(
  `The previous release (${PREVIOUS.slice(0, 7)}) on this release's schema`,
  () => {
    const name = `upgrade_${randomBytes(4).toString('hex')}`;
    const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
    const onDb = new URL(server.toString());
    onDb.pathname = `/${name}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-upgrade-'));
    let admin: Knex;
    let previous: Service;
    let current: Service;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      admin = knex({ client: 'pg', connection: server.toString() });
      await admin.raw('create database ??', [name]);
      const old = await prepareBuild(PREVIOUS, (line) => console.log(line));
      // As a rolling upgrade goes: the previous release serving on its schema, then this release's first instance,
      // whose start applies its migrations under it. (The previous release, 6a76f5a, predates tolerating newer
      // migrations at start: it keeps serving on this schema but could not restart on it. Releases from this one
      // on can; see docs/operations.md, rolling upgrades.)
      previous = await serve(old, onDb.toString(), dataDir);
      current = await serve(currentBuild(), onDb.toString(), dataDir);
      receiver = await startWebhookReceiver();
    }, 300_000);
    afterAll(async () => {
      for (const s of [previous, current]) s?.child.kill('SIGTERM');
      await receiver?.close();
      await sleep(500);
      await admin.raw('drop database if exists ?? with (force)', [name]);
      await admin.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it("when the previous release serves beside this one, then its partner flow works on the new schema, each reads the other's bookings, and a webhook is delivered", async () => {
      const ops = { Authorization: `Bearer ${TOKEN}` };
      const p = await call(previous.url, 'POST', '/ops/v1/partners', { headers: ops, body: { name: 'Upgrade Travel' } });
      expect(p.status).toBe(201);
      const key = (await call(current.url, 'POST', `/ops/v1/partners/${p.body.partner_id as string}/keys`, { headers: ops, body: { env: 'sandbox' } })).body
        .key as string;
      const endpoint = await call(previous.url, 'POST', '/transfers/v1/webhook_endpoints', { key, body: { url: `${receiver.url}/hooks` } });
      expect(endpoint.status).toBe(201);
      receiver.setSecrets([endpoint.body.secret]);

      const byPrevious = await smoke(previous.url, key);
      const byCurrent = await smoke(current.url, key);
      expect((await call(current.url, 'GET', `/transfers/v1/bookings/${byPrevious}`, { key })).body.status).toBe('cancelled');
      expect((await call(previous.url, 'GET', `/transfers/v1/bookings/${byCurrent}`, { key })).body.status).toBe('cancelled');
      // Delivered by either release's worker: the previous release's booking, confirmed then cancelled.
      const deadline = Date.now() + 60_000;
      const types = () =>
        receiver.deliveries
          .filter((d) => d.verified && (d.event?.data as { booking?: { booking_ref?: string } })?.booking?.booking_ref === byPrevious)
          .map((d) => d.event!.type);
      while (Date.now() < deadline && !types().includes('booking.cancelled')) await sleep(250);
      expect(types()).toEqual(expect.arrayContaining(['booking.confirmed', 'booking.cancelled']));
    }, 120_000);
  },
);
