import { type AuditEntry } from '../../../src/data/repositories/audit-repository';
import { commitWithAudit } from '../../../src/data/repositories/audit-commit';
import { isStaleCredentials, keyStillValid } from '../../../src/data/repositories/partners-repository';
import { newKeysWrite } from '../../../src/data/repositories/personal-data-keys-repository';
import { combine } from '../../../src/data/write';
import { useTestApp } from '../../support/use-test-app';

/**
 * Audit rows that change nothing else (a ping, a read, a replay, a refusal) are committed together when they arrive
 * while earlier ones are still being written: one multi-row statement instead of one each. Each request still gets
 * its own outcome, and nothing of a statement that failed is kept.
 */
describe('Audit rows committed together', () => {
  const svc = useTestApp({ outboxWorker: false, partner: 'Batch Travel' });
  let statements: string[] = [];
  beforeAll(() => {
    svc.app.deps.db.observer = (text) => statements.push(text);
  });
  beforeEach(() => (statements = []));

  const entry = (tag: string, i: number): AuditEntry => ({
    surface: 'transfers',
    direction: 'inbound',
    method: 'GET',
    path: `/transfers/v1/ping?batch=${tag}-${i}`,
    status: 200,
    partnerId: svc.partner.partner_id,
    env: 'production',
    requestId: `req_${tag}_${i}`,
    requestHeaders: JSON.stringify({ 'x-n': String(i) }),
    requestBody: null,
    responseHeaders: '{}',
    responseBody: JSON.stringify({ n: i }),
    durationMs: i,
  });

  async function rows(tag: string) {
    const found = await svc.app.deps.db.query<{ request_id: string; path: string; duration_ms: number; response_body: { n: number } }>(
      `select request_id, path, duration_ms, response_body from audit_log where request_id like $1 order by request_id`,
      [`req_${tag}_%`],
    );
    return new Map(found.map((r) => [r.request_id, r]));
  }

  const auditInserts = () => statements.filter((s) => /insert into audit_log/.test(s));

  async function version(): Promise<string> {
    const [p] = await svc.app.deps.db.query<{ v: string }>('select auth_version::text as v from partners where partner_id = $1', [svc.partner.partner_id]);
    return p.v;
  }

  it('when 20 rows arrive at once, then 4 statements write them (2 at once, then up to 16), each row its own values', async () => {
    const fresh = keyStillValid(svc.partner.liveKeyId, await version());
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => commitWithAudit(svc.app.deps.db, fresh, entry('a', i))));

    expect(outcomes).toEqual(Array(20).fill(true));
    expect(auditInserts()).toHaveLength(4);
    const kept = await rows('a');
    expect(kept.size).toBe(20);
    for (let i = 0; i < 20; i += 1) {
      const r = kept.get(`req_a_${i}`)!;
      expect([r.path, r.duration_ms, r.response_body.n]).toEqual([`/transfers/v1/ping?batch=a-${i}`, i, i]);
    }
  });

  it('when one row of a batch asserts credentials that changed, then only that request fails (stale), and the others are kept', async () => {
    const v = await version();
    const stale = keyStillValid(svc.partner.liveKeyId, String(Number(v) - 1));
    const fresh = keyStillValid(svc.partner.liveKeyId, v);
    const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => commitWithAudit(svc.app.deps.db, i === 6 ? stale : fresh, entry('b', i))));

    const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [{ i, stale: isStaleCredentials(s.reason) }] : []));
    expect(failed).toEqual([{ i: 6, stale: true }]);
    const kept = await rows('b');
    expect([...kept.keys()].sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `req_b_${i}`)
        .filter((id) => id !== 'req_b_6')
        .sort(),
    );
    // The first two went alone; the batch of the other eight failed whole, and its rows were written again one by one.
    expect(auditInserts()).toHaveLength(2 + 1 + 8);
  });

  it('when 13 shareable writes arrive at once, then 5 statements commit them (2 alone, then 8, 2 and 1), each CTE renamed its own', async () => {
    const fresh = keyStillValid(svc.partner.liveKeyId, await version());
    const writes = Array.from({ length: 13 }, (_, i) => combine(newKeysWrite([`quote:batch-${i}`], [Buffer.alloc(32, i)]), fresh));
    expect(writes.every((w) => w.shareable)).toBe(true);
    const outcomes = await Promise.all(writes.map((w, i) => commitWithAudit(svc.app.deps.db, w, entry('c', i))));

    expect(outcomes).toEqual(Array(13).fill(true));
    // Two alone, then the other eleven in sizes of 1, 2, 4 or 8 (each size a statement kept per connection): 8, 2, 1.
    // Had two requests' CTEs kept one name, those statements would have failed and their rows gone one by one.
    expect(auditInserts()).toHaveLength(5);
    const keys = await svc.app.deps.db.query<{ subject: string; first: number }>(
      `select subject, get_byte(key, 0) as first from personal_data_keys where subject like 'quote:batch-%' order by subject`,
    );
    expect(keys.map((k) => [k.subject, k.first]).sort()).toEqual(Array.from({ length: 13 }, (_, i) => [`quote:batch-${i}`, i]).sort());
    expect((await rows('c')).size).toBe(13);
  });

  it('when 12 quotes arrive at once over HTTP, then each is stored with its 8 offers and its audit row, and its offer books', async () => {
    const quoteBody = {
      pickup: { iata: 'CMB' },
      dropoff: { name: 'Kandy' },
      pickup_datetime: '2027-01-10T09:30:00+05:30',
      passengers: { adults: 2, luggage: 2 },
    };
    const quotes = await Promise.all(Array.from({ length: 12 }, () => svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: quoteBody })));

    expect(quotes.map((q) => q.status)).toEqual(Array(12).fill(200));
    const ids = quotes.map((q) => q.body.quote_id as string);
    const offers = await svc.app.deps.db.query<{ quote_id: string; n: number }>(
      'select quote_id, count(*)::int as n from offers where quote_id = any($1::text[]) group by quote_id',
      [ids],
    );
    expect(offers.map((o) => [o.quote_id, o.n]).sort()).toEqual(ids.map((id) => [id, 8]).sort());
    const audited = await svc.app.deps.db.query<{ request_id: string }>('select request_id from audit_log where request_id = any($1::text[])', [
      quotes.map((q) => q.headers.get('x-request-id')),
    ]);
    expect(audited).toHaveLength(12);
    const last = quotes[11].body;
    const booked = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.testKey,
      body: {
        quote_id: last.quote_id,
        offer_id: last.offers[0].offer_id,
        partner_reference: 'BATCH-1',
        passenger: { first_name: 'Ayesha', last_name: 'Perera' },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      },
      headers: { 'Idempotency-Key': 'batch-1' },
    });
    expect(booked.status).toBe(201);
  });

  it('when 30 pings arrive at once over HTTP, then each answer has exactly one audit row', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => svc.call('GET', '/transfers/v1/ping', { key: svc.partner.liveKey })));

    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    const ids = answers.map((a) => a.headers.get('x-request-id'));
    const found = await svc.app.deps.db.query<{ request_id: string; n: number }>(
      'select request_id, count(*)::int as n from audit_log where request_id = any($1::text[]) group by request_id',
      [ids],
    );
    expect(found).toHaveLength(30);
    expect(found.every((r) => r.n === 1)).toBe(true);
  });
});
