import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../../support/test-app';
import { client } from '../../support/http';
import { OPS_HEADERS } from '../../support/fixtures';
import { ManualClock } from '../../../src/shared/clock';
import { OPERATOR_AUTH_RULES } from '../../../src/domain/operators/operator-auth';

const NOW = '2026-11-21T08:00:00Z';

/**
 * Repeated wrong operator tokens from one client address: slowed down, then refused outright for a while, counted in
 * the database (so every instance sees the same count), each attempt audited, and every answer the API's own 401.
 */
describe('Wrong operator tokens', () => {
  let app: TestApp;
  const clock = new ManualClock(NOW);
  const call = () => client(app.url);
  const wrong = (n: number) => ({ Authorization: `Bearer op_wrong_guess_${String(n).padStart(12, '0')}` });
  const failures = () => app.db('operator_auth_failures').select('client', 'failures', 'refused_until as refusedUntil');
  const since = () => app.db('audit_log').where('surface', 'ops').andWhere('path', '/ops/v1/ping').orderBy('id');

  beforeAll(async () => {
    app = await startTestApp({ clock });
  });
  afterAll(() => app.close());

  it('when a few wrong tokens come, then each is the plain 401 (byte for byte the missing-token answer); a right token forgets them', async () => {
    const missing = await call()('GET', '/ops/v1/ping');
    expect(missing.status).toBe(401);
    for (const n of [1, 2]) {
      const r = await call()('GET', '/ops/v1/ping', { headers: wrong(n) });
      expect({ status: r.status, text: r.text, retryAfter: r.headers.get('retry-after') }).toEqual({ status: 401, text: missing.text, retryAfter: null });
    }
    // No credential guesses nothing: only the two wrong tokens count.
    expect(await failures()).toEqual([{ client: '127.0.0.1', failures: 2, refusedUntil: null }]);
    expect((await call()('GET', '/ops/v1/ping', { headers: OPS_HEADERS })).status).toBe(200);
    expect(await failures()).toEqual([]);
  });

  it('when ten wrong tokens arrive at once, then each is counted, the later ones are slowed, and the address is refused — even with the right token — until Retry-After', async () => {
    const before = (await since()).length;
    const missing = await call()('GET', '/ops/v1/ping');
    const burst = await Promise.all(Array.from({ length: OPERATOR_AUTH_RULES.refuseFrom }, (_, i) => call()('GET', '/ops/v1/ping', { headers: wrong(i) })));
    for (const r of burst) expect({ status: r.status, text: r.text }).toEqual({ status: 401, text: missing.text });
    // The attempt that reached the limit is told when to come back.
    expect(burst.map((r) => r.headers.get('retry-after')).filter(Boolean)).toEqual([String(OPERATOR_AUTH_RULES.refuseForMs / 1000)]);
    const [row] = await failures();
    expect(row).toMatchObject({ client: '127.0.0.1', failures: OPERATOR_AUTH_RULES.refuseFrom });
    expect(new Date(row.refusedUntil).toISOString()).toBe(new Date(Date.parse(NOW) + OPERATOR_AUTH_RULES.refuseForMs).toISOString());

    // Refused outright: the right token gets the same 401, with Retry-After, and is not even checked.
    clock.advance(60_000);
    const refused = await call()('GET', '/ops/v1/ping', { headers: OPS_HEADERS });
    expect({ status: refused.status, text: refused.text, retryAfter: refused.headers.get('retry-after') }).toEqual({
      status: 401,
      text: missing.text,
      retryAfter: String(OPERATOR_AUTH_RULES.refuseForMs / 1000 - 60),
    });
    expect((await call()('POST', '/ops/v1/partners', { headers: OPS_HEADERS, body: { name: 'Not now' } })).status).toBe(401);
    expect(await app.db('partners').where({ name: 'Not now' })).toEqual([]);

    // Every attempt has its audit row: the burst, the missing token and the refused right token (its secret redacted).
    const rows = (await since()).slice(before);
    expect(rows.map((r) => r.status)).toEqual(Array(OPERATOR_AUTH_RULES.refuseFrom + 2).fill(401));
    expect(rows.at(-1).requestHeaders.authorization).toBe('[REDACTED]');
    expect(rows.at(-1).responseHeaders['retry-after']).toBe(String(OPERATOR_AUTH_RULES.refuseForMs / 1000 - 60));
    // From the third wrong token on, the answer waited (at least the first delay; the audit row keeps the duration).
    const slowed = rows.slice(1, -1).filter((r) => r.durationMs >= OPERATOR_AUTH_RULES.firstDelayMs - 50);
    expect(slowed.length).toBeGreaterThanOrEqual(OPERATOR_AUTH_RULES.refuseFrom - OPERATOR_AUTH_RULES.slowFrom);

    // Once the time is up, the right token works again and the count is forgotten.
    clock.set(new Date(Date.parse(NOW) + OPERATOR_AUTH_RULES.refuseForMs));
    expect((await call()('GET', '/ops/v1/ping', { headers: OPS_HEADERS })).status).toBe(200);
    expect(await failures()).toEqual([]);
  });

  it('when the count is kept in the database, then a second instance on the same database refuses the address too', async () => {
    const other = await startTestApp({ clock, db: { db: app.db, schema: app.schema, drop: async () => {} } });
    try {
      const burst = await Promise.all(Array.from({ length: OPERATOR_AUTH_RULES.refuseFrom }, (_, i) => client(i % 2 ? other.url : app.url)('GET', '/ops/v1/ping', { headers: wrong(i) })));
      expect(burst.every((r) => r.status === 401)).toBe(true);
      const onOther = await client(other.url)('GET', '/ops/v1/ping', { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
      expect(onOther.status).toBe(401);
      expect(onOther.headers.get('retry-after')).toBe(String(OPERATOR_AUTH_RULES.refuseForMs / 1000));
    } finally {
      await other.close();
    }
    clock.advance(OPERATOR_AUTH_RULES.refuseForMs);
    expect((await call()('GET', '/ops/v1/ping', { headers: OPS_HEADERS })).status).toBe(200);
  });
});
