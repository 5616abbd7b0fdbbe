import net from 'node:net';
import { type Reply } from '../../support/http';
import { OPS_HEADERS } from '../../support/fixtures';
import { marketplaceClient, MARKETPLACE_ENV } from '../../support/marketplace';
import { useTestApp } from '../../support/use-test-app';
import { eventually } from '../../support/eventually';

/** Sends bytes as they are (fetch would refuse or re-encode some of them). */
function rawRequest(port: number, bytes: Buffer): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
    socket.write(bytes); // not end(): a half-closed request may be dropped before it is answered
  });
}

const jsonRequest = (method: string, path: string, headers: Record<string, string>, body: Buffer) =>
  Buffer.concat([
    Buffer.from(
      `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${Object.entries(
        headers,
      )
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`,
    ),
    body,
  ]);

describe('Hostile input: one text policy for every body, path and query, and always an audit row', () => {
  const svc = useTestApp({ env: MARKETPLACE_ENV, outboxWorker: false, partner: 'Hostile Travel' });

  const audit = async (r: Pick<Reply, 'headers'>) => svc.app.db('audit_log').where({ requestId: r.headers.get('x-request-id')! });
  const businessRows = async () =>
    Object.fromEntries(
      await Promise.all(
        ['quotes', 'offers', 'bookings', 'partners', 'price_marks', 'marketplace_orders'].map(async (t) => [
          t,
          Number((await svc.app.db(t).count({ n: '*' }))[0].n),
        ]),
      ),
    );
  const quoteBody = (over: Record<string, unknown> = {}) => ({
    pickup: { iata: 'CMB' },
    dropoff: { name: 'Kandy' },
    pickup_datetime: '2026-12-01T09:30:00+05:30',
    passengers: { adults: 2 },
    ...over,
  });

  /** The Transfers answer to a bad request: 400 naming the field, the caller's environment, one audit row, nothing else changed. */
  async function expectRefused(r: Reply, field: string) {
    expect(r.status).toBe(400);
    expect(r.headers.get('x-service-env')).toBe('sandbox');
    expect(r.body).toEqual({
      env: 'sandbox',
      error: { code: 'invalid_request', message: expect.any(String), details: { fields: [expect.objectContaining({ field })] } },
    });
    const rows = await audit(r);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 400, partnerId: svc.partner.partner_id, env: 'sandbox', surface: 'transfers' });
    return rows[0];
  }

  it('when a JSON string holds a NUL character, then 400 names the field and the body is audited as the text sent', async () => {
    const before = await businessRows();
    const raw = JSON.stringify(quoteBody({ dropoff: { name: 'Kandy\u0000' } }));
    const r = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, rawBody: raw, headers: { 'Content-Type': 'application/json' } });
    const row = await expectRefused(r, 'dropoff.name');
    expect(row.requestBody.$unparsed).toMatchObject({ text: raw, bytes: Buffer.byteLength(raw) });
    expect(await businessRows()).toEqual(before);
  });

  it('when a partner_reference holds a NUL or a name a lone surrogate, then 400 names each, never a 5xx', async () => {
    const booking = { quote_id: 'a'.repeat(32), offer_id: 'b'.repeat(32), passenger: { first_name: 'A', last_name: 'B' }, passengers: { adults: 1 } };
    await expectRefused(
      await svc.call('POST', '/transfers/v1/bookings', { key: svc.partner.testKey, body: { ...booking, partner_reference: 'REF\u0000' } }),
      'partner_reference',
    );
    const surrogate =
      '{"quote_id":"' +
      'a'.repeat(32) +
      '","offer_id":"' +
      'b'.repeat(32) +
      '","partner_reference":"R1","passenger":{"first_name":"A\\ud800","last_name":"B"},"passengers":{"adults":1}}';
    const r = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.testKey,
      rawBody: surrogate,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'lone-surrogate' },
    });
    await expectRefused(r, 'passenger.first_name');
    expect(await svc.app.db('idempotency_keys').where({ idempotencyKey: 'lone-surrogate' })).toHaveLength(0);
  });

  it('when a key of the body holds a NUL, then 400 names it, escaped', async () => {
    const r = await svc.call('POST', '/transfers/v1/quotes', {
      key: svc.partner.testKey,
      rawBody: '{"pick\\u0000up": 1}',
      headers: { 'Content-Type': 'application/json' },
    });
    await expectRefused(r, 'pick\\u0000up');
  });

  it('when the body is not UTF-8, then 400 names the body and the audit keeps the bytes as base64', async () => {
    const bytes = Buffer.concat([Buffer.from('{"pickup": {"name": "'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}')]);
    const r = await rawRequest(svc.app.port, jsonRequest('POST', '/transfers/v1/quotes', { Authorization: `Bearer ${svc.partner.testKey}` }, bytes));
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({
      env: 'sandbox',
      error: { code: 'invalid_request', details: { fields: [{ field: 'body', message: 'must be UTF-8 encoded text' }] } },
    });
    const requestId = /x-request-id: (\S+)/i.exec(r.head)![1];
    const [row] = await svc.app.db('audit_log').where({ requestId });
    expect(Buffer.from(row.requestBody.$unparsed.base64, 'base64')).toEqual(bytes);
  });

  it('when numbers overflow or the JSON nests too deep, then 400 names the field or the body', async () => {
    await expectRefused(
      await svc.call('POST', '/transfers/v1/quotes', {
        key: svc.partner.testKey,
        rawBody: JSON.stringify(quoteBody()).replace('"adults":2', '"adults":1e400'),
        headers: { 'Content-Type': 'application/json' },
      }),
      'passengers.adults',
    );
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    await expectRefused(
      await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, rawBody: deep, headers: { 'Content-Type': 'application/json' } }),
      'body',
    );
  });

  it('when a path segment decodes to NUL or is not valid percent-encoding, then 400 names the parameter', async () => {
    await expectRefused(await svc.call('GET', '/transfers/v1/bookings/AB%00CD', { key: svc.partner.testKey }), 'booking_ref');
    await expectRefused(await svc.call('GET', '/transfers/v1/bookings/%E0%A4%A', { key: svc.partner.testKey }), 'booking_ref');
    await expectRefused(await svc.call('GET', '/transfers/v1/bookings/%ED%A0%80', { key: svc.partner.testKey }), 'booking_ref');
  });

  it('when malformed JSON or a wrong content type comes with a valid key, then the answer and the audit row carry the environment', async () => {
    const malformed = await svc.call('POST', '/transfers/v1/quotes', {
      key: svc.partner.testKey,
      rawBody: '{"pickup": ',
      headers: { 'Content-Type': 'application/json' },
    });
    await expectRefused(malformed, 'body');
    const form = await svc.call('POST', '/transfers/v1/quotes', {
      key: svc.partner.testKey,
      rawBody: 'pickup=CMB',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const row = await expectRefused(form, 'Content-Type');
    expect(row.requestBody.$unparsed).toMatchObject({ text: 'pickup=CMB' });
    // A NUL byte where JSON expects a value: the parser's message quotes it; the answer and the audit row stay whole.
    const nulByte = await svc.call('POST', '/transfers/v1/quotes', {
      key: svc.partner.testKey,
      rawBody: '{"pickup": \u0000}',
      headers: { 'Content-Type': 'application/json' },
    });
    await expectRefused(nulByte, 'body');
    expect(nulByte.text).not.toContain('\u0000');
    const noKey = await svc.call('POST', '/transfers/v1/quotes', { rawBody: '{"pickup": ', headers: { 'Content-Type': 'application/json' } });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('x-service-env')).toBe('none');
  });

  it('when a method is not allowed on a path, then 405 says which are, in the Allow header', async () => {
    const r = await svc.call('GET', '/transfers/v1/quotes', { key: svc.partner.testKey });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.body.error.code).toBe('method_not_allowed');
    const b = await svc.call('DELETE', '/transfers/v1/bookings/ABCDEFGH', { key: svc.partner.testKey });
    expect(b.headers.get('allow')).toBe('GET, PATCH');
    expect(await audit(r)).toHaveLength(1);
  });

  it('when the operator API gets NUL in a body or a query, then 400 in its own envelope', async () => {
    const body = await svc.call('POST', '/ops/v1/partners', { headers: OPS_HEADERS, body: { name: 'Evil\u0000 Corp' } });
    expect(body.status).toBe(400);
    expect(body.body).toEqual({
      error: { code: 'invalid_request', message: expect.any(String), details: { fields: [expect.objectContaining({ field: 'name' })] } },
    });
    const query = await svc.call('GET', '/ops/v1/audit?path=%00', { headers: OPS_HEADERS });
    expect(query.status).toBe(400);
    expect(query.body.error.details.fields[0].field).toBe('path');
    for (const r of [body, query]) expect(await audit(r)).toHaveLength(1);
  });

  it('when a signed marketplace call or a callback carries a NUL or a lone surrogate, then 400 in the marketplace envelope', async () => {
    const mp = marketplaceClient(svc.app.url);
    const search = await mp.signed('POST', '/search/', { from: { name: 'Colombo\u0000' }, to: { name: 'Kandy' }, date: '2026-12-01 09:30:00', adults: 1 });
    expect(search.status).toBe(400);
    expect(search.body).toEqual({ status: 'ERROR', error: expect.stringContaining('from.name') });
    const cb = await svc.call('POST', `/marketplace/callback?token=${MARKETPLACE_ENV.MARKETPLACE_CALLBACK_TOKEN}`, {
      rawBody: '{"type":"new","order_id":"A\\udfff"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(cb.status).toBe(400);
    expect(cb.body.status).toBe('ERROR');
    for (const r of [search, cb]) expect(await audit(r)).toHaveLength(1);
  });

  it('when a request is not even valid HTTP, then it is answered in the envelope and audited, its secrets redacted', async () => {
    const r = await rawRequest(
      svc.app.port,
      Buffer.from(`GET /transfers/v1/ping HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.partner.testKey}\r\nBad Header: \u0001\r\n\r\n`, 'latin1'),
    );
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ env: null, error: { code: 'invalid_request' } });
    const requestId = /x-request-id: (\S+)/i.exec(r.head)![1];
    // Answered first, audited right after: wait for the row.
    const rows: any[] = await eventually(
      `the audit row of ${requestId}`,
      async () => {
        const found = await svc.app.db('audit_log').where({ requestId });
        return found.length ? found : undefined;
      },
      5000,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ surface: 'none', status: 400, method: 'GET', path: '/transfers/v1/ping' });
    expect(JSON.stringify(rows[0])).not.toContain(svc.partner.testKey.slice(-20));
  });
});
