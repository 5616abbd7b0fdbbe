import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { startWebhookReceiver, type WebhookReceiver } from '../../simulators/partner/webhook-receiver';
import { describeIf, hasProgram, needsPostgres, needsProgram } from '../support/skip';
import { backend } from '../support/test-app';
import { firstOfferBooking } from '../support/bookings';
import { outageProxy } from '../support/tcp-proxy';
import { pickupInDays } from '../support/real-clock';

/** scripts/topology.js (plain JavaScript: `npm run topology` runs it too). */
interface Instance {
  name: string;
  url: string;
  opsUrl: string;
  pid?: number;
  start(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<string | number | null>;
  /** Everything it has logged (pino's JSON lines). */
  log(): string;
}
interface Topology {
  url: string;
  name: string;
  instances: Instance[];
  operatorToken: string;
  pooler: { url(db: string): string; kill(): void; start(): void };
  stop(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startTopology } = require('../../scripts/topology') as { startTopology(o: object): Promise<Topology> };

const programs = ['/usr/sbin/haproxy', '/usr/sbin/pgbouncer'];
const required = process.env.TEST_REQUIRE_SYSTEM_PROGRAMS === 'true';
const missing = programs.find((p) => !hasProgram(p));
const here = backend === 'postgres' && (required || !missing);
const why = backend !== 'postgres' ? needsPostgres('PgBouncer and three instances share a PostgreSQL server') : needsProgram(missing ?? programs[0]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** One request, over a fresh connection (each through HAProxy); a network error is status 0. `from`: the local address. */
function request(
  base: string,
  method: string,
  path: string,
  o: { key?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {},
): Promise<Answer> {
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  return new Promise((resolve) => {
    const req = http.request(
      `${base}${path}`,
      {
        method,
        agent: false,
        localAddress: o.from,
        headers: {
          ...(o.key ? { Authorization: `Bearer ${o.key}` } : {}),
          ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}),
          ...o.headers,
        },
        timeout: 40_000,
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON (an HAProxy page)
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
        res.on('error', () => resolve({ status: 0, headers: {}, body: null }));
      },
    );
    req.on('error', () => resolve({ status: 0, headers: {}, body: null }));
    req.on('timeout', () => req.destroy());
    req.end(body);
  });
}

/**
 * The instances' error lines (pino level 50 and up), shortened: printed when a client saw a 5xx it should not
 * have, so that a failure on a CI machine says which error the service did not classify.
 */
function serviceErrors(t: Topology): string[] {
  const lines: string[] = [];
  for (const m of t.instances) {
    for (const line of m.log().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const l = JSON.parse(line) as { level: number; msg?: string; err?: { type?: string; code?: string; message?: string; stack?: string } };
        if (l.level < 50) continue;
        const at = l.err?.stack
          ?.split('\n')
          .slice(1, 4)
          .map((f) => f.trim())
          .join(' ← ');
        lines.push(`${m.name}: ${l.msg} | ${l.err?.type} ${l.err?.code ?? ''} ${l.err?.message ?? ''} | ${at ?? ''}`);
      } catch {
        // not one of the service's lines
      }
    }
  }
  return lines.slice(-20);
}

/** Prints the service's error lines when the clients saw a 500 (which the assertions then refuse). */
function explain500(t: Topology, tally: { statuses: Record<string, number> }): void {
  if (tally.statuses['500']) console.log(`the service's errors:\n${serviceErrors(t).join('\n')}`);
}

/** What the clients saw, and the bookings they were told about. */
interface Tally {
  sent: number;
  statuses: Record<string, number>;
  failed: Answer[];
  booked: Map<string, string>; // partner_reference → booking_ref
  cancelled: Set<string>;
}

/**
 * `loops` clients through HAProxy, each: quote, book (its own Idempotency-Key and reference), cancel, until `stop`
 * says so. `retry`: a booking or cancel that fails (network error or 5xx) is sent again with the same key, as a
 * client following our guidance does; without it, every non-2xx answer counts as failed.
 */
function clients(t: Topology, key: string, loops: number, retry: boolean, pace = 0) {
  const tally: Tally = { sent: 0, statuses: {}, failed: [], booked: new Map(), cancelled: new Set() };
  let running = true;
  const seen = (a: Answer) => {
    tally.sent += 1;
    tally.statuses[a.status] = (tally.statuses[a.status] ?? 0) + 1;
  };
  const send = async (method: string, path: string, o: Parameters<typeof request>[3], ok: (s: number) => boolean) => {
    for (let attempt = 0; ; attempt += 1) {
      const a = await request(t.url, method, path, o);
      seen(a);
      if (ok(a.status)) return a;
      const retryable = a.status === 0 || a.status >= 500;
      if (!retry || !retryable || attempt >= 30) {
        tally.failed.push(a);
        return undefined;
      }
      await sleep(Math.min(2000, Number(a.headers['retry-after'] ?? 0) * 1000 || 200));
    }
  };
  const loop = async (n: number) => {
    for (let i = 0; running; i += 1) {
      const q = await send(
        'POST',
        '/transfers/v1/quotes',
        {
          key,
          body: { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: pickupInDays(20), passengers: { adults: 2, luggage: 2 } },
        },
        (s) => s === 200,
      );
      if (!q) continue;
      const reference = `T${n}-${i}-${randomBytes(3).toString('hex')}`;
      const b = await send(
        'POST',
        '/transfers/v1/bookings',
        {
          key,
          headers: { 'Idempotency-Key': reference },
          body: firstOfferBooking(q.body, reference),
        },
        (s) => s === 201 || s === 200,
      );
      if (!b) continue;
      tally.booked.set(reference, b.body.booking_ref);
      const c = await send(
        'POST',
        `/transfers/v1/bookings/${b.body.booking_ref}/cancel`,
        { key, headers: { 'Idempotency-Key': `${reference}-cancel` } },
        (s) => s === 200,
      );
      if (c) tally.cancelled.add(b.body.booking_ref);
      // A partner's pace, not a flood: the webhooks of every booking must arrive within the test.
      await sleep(pace);
    }
  };
  const all = Promise.all(Array.from({ length: loops }, (_, n) => loop(n)));
  return {
    tally,
    async stop() {
      running = false;
      await all;
      return tally;
    },
  };
}

describeIf(here, why)('The production topology: HAProxy, three instances, PgBouncer, PostgreSQL, Redis', () => {
  let t: Topology;
  let key: string;
  let partnerId: string;
  let receiver: WebhookReceiver;
  // PostgreSQL as everything in the topology reaches it: through a proxy the test can cut, as a restart would.
  const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const database = outageProxy(server.hostname, Number(server.port || 5432));

  const ops = (method: string, path: string, body?: unknown) =>
    request(t.instances[0].opsUrl, method, `/ops/v1${path}`, { headers: { Authorization: `Bearer ${t.operatorToken}` }, body });
  const sql = async <R>(text: string): Promise<R[]> => {
    const { default: knex } = await import('knex');
    const url = new URL(server.toString());
    url.pathname = `/${t.name}`;
    const db = knex({ client: 'pg', connection: url.toString() });
    try {
      return (await db.raw(text)).rows as R[];
    } finally {
      await db.destroy();
    }
  };

  beforeAll(async () => {
    // The sandbox key's default limit (25 a second) would refuse the load: these tests are about restarts.
    await database.open();
    const viaProxy = new URL(server.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(database.port);
    t = await startTopology({
      databaseUrl: viaProxy.toString(),
      fresh: true,
      env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', SANDBOX_RATE_PER_S: '10000', SANDBOX_BURST: '100000' },
    });
    const p = await ops('POST', '/partners', { name: 'Topology Travel' });
    partnerId = p.body.partner_id;
    key = (await ops('POST', `/partners/${partnerId}/keys`, { env: 'sandbox' })).body.key;
    receiver = await startWebhookReceiver();
    const endpoint = await request(t.url, 'POST', '/transfers/v1/webhook_endpoints', { key, body: { url: `${receiver.url}/hooks` } });
    receiver.setSecrets([endpoint.body.secret]);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
    await database.cut();
  });

  /** The database's view of what the clients were told: every booking there, once, with its audit row. */
  async function accountFor(tally: Tally) {
    const refs = [...tally.booked.values()];
    const rows = await sql<{ booking_ref: string; partner_reference: string }>(
      `select booking_ref, partner_reference from bookings where partner_id = '${partnerId}'`,
    );
    const inDb = new Map(rows.map((r) => [r.partner_reference, r.booking_ref]));
    const lost = [...tally.booked].filter(([ref, booking]) => inDb.get(ref) !== booking);
    const audited = await sql<{ ref: string }>(
      `select distinct response_body ->> 'booking_ref' as ref from audit_log where surface = 'transfers' and path = '/transfers/v1/bookings' and status in (200, 201)`,
    );
    const auditedRefs = new Set(audited.map((a) => a.ref));
    return { refs, inDb, lost, unaudited: refs.filter((r) => !auditedRefs.has(r)) };
  }

  it('when each instance in turn is stopped (SIGTERM) and started again under load, then no request fails and every booking is there once, audited, its webhooks in order', async () => {
    const load = clients(t, key, 4, false, 150);
    await sleep(2000);
    for (const instance of t.instances) {
      const exit = await instance.stop('SIGTERM');
      expect(exit).toBe(0);
      await instance.start();
      // Back in HAProxy after two good checks.
      await sleep(2500);
    }
    const tally = await load.stop();
    const { refs, inDb, lost, unaudited } = await accountFor(tally);
    console.log(
      `rolling restart: ${tally.sent} requests, ${tally.failed.length} failed, ${refs.length} bookings made, ${lost.length} lost, ${inDb.size - refs.length} unknown to the clients; statuses ${JSON.stringify(tally.statuses)}`,
    );
    explain500(t, tally);
    expect(tally.failed).toEqual([]);
    expect(refs.length).toBeGreaterThan(20);
    expect(lost).toEqual([]);
    expect(inDb.size).toBe(refs.length);
    expect(unaudited).toEqual([]);

    // Webhooks: each booking's events (confirmed, then cancelled) arrive, in order.
    const wanted = [...tally.cancelled];
    const deadline = Date.now() + 120_000;
    const order = new Map<string, number[]>();
    while (Date.now() < deadline) {
      order.clear();
      for (const d of receiver.deliveries) {
        const e = d.verified ? d.event : null;
        const ref = (e?.data as { booking?: { booking_ref?: string } } | undefined)?.booking?.booking_ref;
        if (!e || !ref) continue;
        const seen = order.get(ref) ?? [];
        const sequence = e.sequence ?? 0;
        if (!seen.includes(sequence)) seen.push(sequence);
        order.set(ref, seen);
      }
      if (wanted.every((r) => (order.get(r) ?? []).length >= 2)) break;
      await sleep(500);
    }
    const late = wanted.filter((r) => (order.get(r) ?? []).length < 2);
    console.log(
      `webhooks: ${wanted.length} bookings confirmed and cancelled, ${receiver.deliveries.length} deliveries received, ${late.length} bookings still missing an event`,
    );
    for (const ref of wanted) expect([ref, order.get(ref)]).toEqual([ref, [1, 2]]);
  }, 240_000);

  it('when one instance is killed (-9) under load, then every booking that got a 201 exists, and a client retrying with its key gets that booking, never a second', async () => {
    const load = clients(t, key, 4, true);
    await sleep(2000);
    const victim = t.instances[1];
    expect(await victim.stop('SIGKILL')).toBe('SIGKILL');
    await sleep(3000);
    await victim.start();
    await sleep(3000);
    const tally = await load.stop();
    const before = await accountFor(tally);
    console.log(
      `kill -9: ${tally.sent} requests, ${tally.failed.length} failed after retries, ${before.refs.length} bookings made, ${before.lost.length} lost; statuses ${JSON.stringify(tally.statuses)}`,
    );
    explain500(t, tally);
    expect(tally.failed).toEqual([]);
    expect(before.lost).toEqual([]);
    // No booking the clients were not told of: each key made one.
    expect(before.inDb.size).toBe((await accountFor({ ...tally, booked: new Map() })).inDb.size);
    const dupes = await sql<{ n: number }>(
      `select count(*)::int as n from bookings where partner_id = '${partnerId}' group by partner_reference having count(*) > 1`,
    );
    expect(dupes).toEqual([]);
  }, 240_000);

  it('when the pooler is restarted under load, then readiness drops and recovers; clients get 503 with Retry-After, never 500, and nothing is lost', async () => {
    const load = clients(t, key, 4, true);
    await sleep(1500);
    t.pooler.kill();
    const down = await request(t.url, 'GET', '/transfers/v1/ping', { key });
    await sleep(2000);
    t.pooler.start();
    await sleep(4000);
    const tally = await load.stop();
    const { lost } = await accountFor(tally);
    console.log(
      `pooler restart: ${tally.sent} requests, ${tally.failed.length} failed after retries, ${tally.booked.size} bookings in all, ${lost.length} lost; statuses ${JSON.stringify(tally.statuses)}`,
    );
    explain500(t, tally);
    expect(tally.statuses['500'] ?? 0).toBe(0);
    expect(tally.failed).toEqual([]);
    expect(lost).toEqual([]);
    expect([200, 503]).toContain(down.status);
    if (down.status === 503) expect(down.headers['retry-after']).toBeDefined();
    // Every 5xx a client saw was a 503 with Retry-After (the service's, or HAProxy's own with every instance out).
    expect(Object.keys(tally.statuses).filter((s) => Number(s) >= 500 && s !== '503')).toEqual([]);
  }, 240_000);

  it('when PostgreSQL goes away for a few seconds under load (a restart), then clients get 503 with Retry-After, never 500, and once it is back nothing is lost', async () => {
    const load = clients(t, key, 4, true);
    await sleep(1500);
    await database.cut();
    const down = await request(t.url, 'GET', '/transfers/v1/ping', { key });
    await sleep(3000);
    await database.open();
    await sleep(5000);
    const tally = await load.stop();
    const { lost } = await accountFor(tally);
    console.log(
      `database restart: ${tally.sent} requests, ${tally.failed.length} failed after retries, ${lost.length} lost; statuses ${JSON.stringify(tally.statuses)}`,
    );
    explain500(t, tally);
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBeDefined();
    expect(Object.keys(tally.statuses).filter((s) => Number(s) >= 500 && s !== '503')).toEqual([]);
    expect(tally.failed).toEqual([]);
    expect(lost).toEqual([]);
  }, 240_000);

  it('when one address floods the three instances through HAProxy without a key, then together they let its burst through (within 20 %), with Redis', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 600; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => request(t.url, 'GET', '/transfers/v1/ping', { from: '127.0.0.9' })));
      statuses.push(...batch.map((a) => a.status));
    }
    const through = statuses.filter((s) => s === 401).length;
    console.log(
      `anonymous flood through HAProxy: ${statuses.length} requests, ${through} let through (burst 200), ${statuses.filter((s) => s === 429).length} refused`,
    );
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(through).toBeGreaterThanOrEqual(160);
    expect(through).toBeLessThanOrEqual(240);
  });

  it("when a client sends through HAProxy, then the audit log has the client's own address, not one it forged in X-Forwarded-For", async () => {
    const a = await request(t.url, 'GET', '/transfers/v1/ping', { key, from: '127.0.0.7', headers: { 'X-Forwarded-For': '203.0.113.66' } });
    expect(a.status).toBe(200);
    const [row] = await sql<{ client: string }>(`select client from audit_log where request_id = '${a.headers['x-request-id'] as string}'`);
    expect(row.client).toBe('127.0.0.7');
  });
});
