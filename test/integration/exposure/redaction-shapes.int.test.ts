import { openSealed } from '../../../src/domain/kernel/seal-personal';
import { backend, startTestApp, type TestApp } from '../../support/test-app';
import { capturedLogger } from '../../support/logs';
import { client, type Call } from '../../support/http';
import { operator } from '../../support/fixtures';
import { quoteAndBook } from '../../support/bookings';
import { ManualClock } from '../../../src/shared/clock';

/**
 * Secrets the raw text does not show: a passenger's tracking link (a capability with no prefix of its own, found by
 * its shape `/t/{token}`), and a key spelled with JSON `\u` escapes. Neither reaches an audit row or a log line.
 */
describe(`Tracking links and escaped secrets are redacted (${backend})`, () => {
  let app: TestApp;
  let call: Call;
  let partner: Awaited<ReturnType<ReturnType<typeof operator>['partnerWithKeys']>>;
  const { logger, lines } = capturedLogger('debug');

  beforeAll(async () => {
    app = await startTestApp({ clock: new ManualClock('2026-11-21T08:00:00Z'), outboxWorker: false, env: { LOG_LEVEL: 'debug' }, logger });
    call = client(app.url);
    partner = await operator(app.url).partnerWithKeys('Tracking Travel');
  });
  afterAll(() => app.close());

  const rowOf = async (requestId: string | null) => app.db('audit_log').where({ requestId }).first();

  it('when a traveller opens a tracking link (new or an older booking’s two-UUID one), then its audit path and the log lines keep the first 4 characters only', async () => {
    const { booking } = await quoteAndBook(call, partner.testKey);
    const token = new URL(booking.tracking_url).pathname.slice('/t/'.length);
    expect(token).toMatch(/^[A-Za-z0-9]{24}$/);
    // An older booking's link: two UUIDs without their dashes (the migration that introduced links).
    const older = await quoteAndBook(call, partner.testKey);
    const legacy = 'a3f1c2d4e5b647a8b9c0d1e2f3a4b5c6d7e8f90112234455a6b7c8d9e0f1a2b3';
    await app.db('bookings').where({ booking_ref: older.booking.booking_ref }).update({ tracking_token: legacy });

    const before = lines.length;
    const views = [
      [token, await call('GET', `/t/${token}`)],
      [legacy, await call('GET', `/t/${legacy}`)],
      // Unknown links and links pasted into a query are cut the same way.
      ['Zz9ZNoSuchTokenNoSuchTok', await call('GET', '/t/Zz9ZNoSuchTokenNoSuchTok')],
      [token, await call('GET', `/transfers/v1/ping?next=${encodeURIComponent(`https://example.com/t/${token}`)}`)],
    ] as const;
    expect(views.map(([, r]) => r.status)).toEqual([200, 200, 404, 401]);
    for (const [t, r] of views) {
      const row = await rowOf(r.headers.get('x-request-id'));
      expect(JSON.stringify(row)).not.toContain(t);
      expect(row.path).toContain(`${t.slice(0, 4)}[REDACTED]`);
    }
    const logged = lines.slice(before).join('');
    expect(logged).toContain(`/t/${token.slice(0, 4)}[REDACTED]`);
    for (const [t] of views) expect(logged).not.toContain(t);
  });

  it('when a key is spelled with \\u escapes in a JSON body, then its audit row holds no part of its secret', async () => {
    const secret = 'Qx7Lm2Np9Rt4Vw6Yz8Bc3Df5Gh1Jk0Ms2';
    const escapedKey = `\\u0073vc_sk_test_abcdef123456_\\u0051${secret.slice(1)}`;
    const escapedName = '\\u0074oken';
    const body = `{"pickup": {"iata": "CMB"}, "dropoff": {"name": "${escapedKey}"}, "${escapedName}": "${secret}Z", "passengers": {"adults": 1}}`;
    const r = await fetch(`${app.url}/transfers/v1/quotes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${partner.testKey}`, 'Content-Type': 'application/json' },
      body,
    });
    await r.arrayBuffer();
    expect(r.status).toBe(400);
    const row = await rowOf(r.headers.get('x-request-id'));
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(secret.slice(1, 17));
    // The place's own text is the traveller's, sealed in the row; opened, it is the key with its secret redacted.
    expect(row.requestBody.dropoff.name).toMatch(/^pd1:/);
    const [opened] = await openSealed(app.deps.dataKeys, app.deps.db, [row.requestBody]);
    expect(opened.dropoff.name).toBe('svc_sk_test_abcdef123456_[REDACTED]');
    expect(row.requestBody.token).toBe('[REDACTED]');
    expect(lines.join('')).not.toContain(secret.slice(1, 17));
  });
});
