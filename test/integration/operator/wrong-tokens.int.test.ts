import { startTestApp, OPERATOR_TOKEN } from '../../support/test-app';
import { client } from '../../support/http';
import { OPS_HEADERS } from '../../support/fixtures';
import { ManualClock } from '../../../src/shared/clock';
import { checkOperatorToken, LOCKED_OUT_DELAY_MS, OPERATOR_AUTH_RULES } from '../../../src/domain/operators/operator-auth';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';

/**
 * Repeated wrong operator tokens from one client address: slowed down, then refused outright for a while, counted in
 * the database (so every instance sees the same count), each attempt audited, and every answer the API's own 401.
 */
describe('Wrong operator tokens', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock });
  const call = () => client(svc.app.url);
  const wrong = (n: number) => ({ Authorization: `Bearer op_wrong_guess_${String(n).padStart(12, '0')}` });
  const failures = () => svc.app.db('operator_auth_failures').select('client', 'failures', 'refused_until as refusedUntil');
  const since = () => svc.app.db('audit_log').where('surface', 'ops').andWhere('path', '/ops/v1/ping').orderBy('id');

  it('when a few wrong tokens come, then each is the plain 401 (byte for byte the missing-token answer); a right token is served and forgets nothing', async () => {
    const missing = await call()('GET', '/ops/v1/ping');
    expect(missing.status).toBe(401);
    for (const n of [1, 2]) {
      const r = await call()('GET', '/ops/v1/ping', { headers: wrong(n) });
      expect({ status: r.status, text: r.text, retryAfter: r.headers.get('retry-after') }).toEqual({ status: 401, text: missing.text, retryAfter: null });
    }
    // No credential guesses nothing: only the two wrong tokens count.
    expect(await failures()).toEqual([{ client: '127.0.0.1', failures: 2, refusedUntil: null }]);
    expect((await call()('GET', '/ops/v1/ping', { headers: OPS_HEADERS })).status).toBe(200);
    // An operator's traffic does not wipe a guesser's count (they may share an address).
    expect(await failures()).toEqual([{ client: '127.0.0.1', failures: 2, refusedUntil: null }]);
    // A count with no new failure for a while starts again.
    clock.advance(OPERATOR_AUTH_RULES.forgetAfterMs + 1);
  });

  it('when ten wrong tokens arrive at once, then each is counted, the later ones are slowed, and wrong tokens from the address are refused until Retry-After, while the right token is served', async () => {
    const t0 = clock.now().getTime();
    const before = (await since()).length;
    const missing = await call()('GET', '/ops/v1/ping');
    const burst = await Promise.all(Array.from({ length: OPERATOR_AUTH_RULES.refuseFrom }, (_, i) => call()('GET', '/ops/v1/ping', { headers: wrong(i) })));
    for (const r of burst) expect({ status: r.status, text: r.text }).toEqual({ status: 401, text: missing.text });
    // The attempt that reached the limit is told when to come back.
    expect(burst.map((r) => r.headers.get('retry-after')).filter(Boolean)).toEqual([String(OPERATOR_AUTH_RULES.refuseForMs / 1000)]);
    const [row] = await failures();
    expect(row).toMatchObject({ client: '127.0.0.1', failures: OPERATOR_AUTH_RULES.refuseFrom });
    expect(new Date(row.refusedUntil).toISOString()).toBe(new Date(t0 + OPERATOR_AUTH_RULES.refuseForMs).toISOString());

    // Refused: a wrong token (or none) gets the same 401 with Retry-After, and is not even checked …
    clock.advance(60_000);
    const refused = await call()('GET', '/ops/v1/ping', { headers: wrong(99) });
    expect({ status: refused.status, text: refused.text, retryAfter: refused.headers.get('retry-after') }).toEqual({
      status: 401,
      text: missing.text,
      retryAfter: String(OPERATOR_AUTH_RULES.refuseForMs / 1000 - 60),
    });
    expect((await call()('GET', '/ops/v1/ping')).headers.get('retry-after')).toBe(String(OPERATOR_AUTH_RULES.refuseForMs / 1000 - 60));
    // … but an operator behind the same address is never locked out.
    expect((await call()('GET', '/ops/v1/ping', { headers: OPS_HEADERS })).status).toBe(200);
    expect((await call()('POST', '/ops/v1/partners', { headers: OPS_HEADERS, body: { name: 'Still served' } })).status).toBe(201);

    // Every attempt has its audit row: the burst, the missing tokens, the refused wrong one (its secret redacted).
    const rows = (await since()).slice(before);
    expect(rows.map((r) => r.status)).toEqual([...Array(OPERATOR_AUTH_RULES.refuseFrom + 3).fill(401), 200]);
    const refusedRow = rows.find((r) => r.requestId === refused.headers.get('x-request-id'));
    expect(refusedRow.requestHeaders.authorization).toBe('[REDACTED]');
    expect(refusedRow.responseHeaders['retry-after']).toBe(String(OPERATOR_AUTH_RULES.refuseForMs / 1000 - 60));
    // From the third wrong token on, the answer waited (at least the first delay; the audit row keeps the duration).
    const slowed = rows.slice(1, OPERATOR_AUTH_RULES.refuseFrom + 1).filter((r) => r.durationMs >= OPERATOR_AUTH_RULES.firstDelayMs - 50);
    expect(slowed.length).toBeGreaterThanOrEqual(OPERATOR_AUTH_RULES.refuseFrom - OPERATOR_AUTH_RULES.slowFrom);
    // Locked out, a wrong token still waits as long as the last slowed one: the lockout does not speed answers up.
    expect(refusedRow.durationMs).toBeGreaterThanOrEqual(LOCKED_OUT_DELAY_MS - 50);

    // Once the time is up and the count forgotten, a wrong token is a plain 401 again.
    clock.set(new Date(t0 + Math.max(OPERATOR_AUTH_RULES.refuseForMs, OPERATOR_AUTH_RULES.forgetAfterMs) + 1));
    expect((await call()('GET', '/ops/v1/ping', { headers: wrong(100) })).headers.get('retry-after')).toBeNull();
    clock.advance(OPERATOR_AUTH_RULES.forgetAfterMs + 1);
  });

  it('when a client’s wrong tokens go on into the lockout, then no answer is held shorter than the one before it (the verdicts, no waiting)', async () => {
    const client = '192.0.2.77';
    const verdict = (authorization?: string) =>
      checkOperatorToken(svc.app.deps.db, { client, authorization, token: OPERATOR_TOKEN, now: clock.now() }).then((v) => (v.ok ? -1 : v.delayMs));
    const delays: number[] = [];
    for (let n = 1; n <= OPERATOR_AUTH_RULES.refuseFrom + 3; n += 1) delays.push(await verdict(wrong(n).Authorization));
    const lastSlowed = delays[OPERATOR_AUTH_RULES.refuseFrom - 2];
    expect(lastSlowed).toBe(OPERATOR_AUTH_RULES.maxDelayMs);
    expect(delays.slice(OPERATOR_AUTH_RULES.refuseFrom - 1)).toEqual([lastSlowed, lastSlowed, lastSlowed, lastSlowed]);
    expect(delays.every((d, i) => i === 0 || d >= delays[i - 1])).toBe(true);
    // No token guessed nothing: answered at once, locked out or not, as it is before.
    expect(await verdict(undefined)).toBe(0);
    clock.advance(Math.max(OPERATOR_AUTH_RULES.refuseForMs, OPERATOR_AUTH_RULES.forgetAfterMs) + 1);
  });

  it('when the count is kept in the database, then a second instance on the same database refuses the address’s wrong tokens too, and serves its right one', async () => {
    const other = await startTestApp({ clock, db: { db: svc.app.db, env: svc.app.dbEnv, drop: async () => {} } });
    try {
      const burst = await Promise.all(
        Array.from({ length: OPERATOR_AUTH_RULES.refuseFrom }, (_, i) => client(i % 2 ? other.url : svc.app.url)('GET', '/ops/v1/ping', { headers: wrong(i) })),
      );
      expect(burst.every((r) => r.status === 401)).toBe(true);
      const wrongOnOther = await client(other.url)('GET', '/ops/v1/ping', { headers: wrong(42) });
      expect(wrongOnOther.status).toBe(401);
      expect(wrongOnOther.headers.get('retry-after')).toBe(String(OPERATOR_AUTH_RULES.refuseForMs / 1000));
      expect((await client(other.url)('GET', '/ops/v1/ping', { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } })).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
