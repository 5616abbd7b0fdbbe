import { openSealed } from '../../../src/domain/kernel/seal-personal';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { redactedHead } from '../../../src/shared/redact';
import { backend, type TestApp } from '../../support/test-app';
import { operator } from '../../support/fixtures';
import { useTestApp } from '../../support/use-test-app';

/** Bytes the service's tables and indexes take in its schema (the audit log's partitions included). */
async function databaseBytes(app: TestApp): Promise<number> {
  const r = await app.db.raw(`
    select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as n
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'm')`);
  return Number(r.rows[0].n);
}

/** Sends raw HTTP (a chunked body, an oversized URL) and reads the answer. */
function raw(
  port: number,
  opts: { method: string; path: string; headers?: Record<string, string>; chunks?: Buffer[] },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method, path: opts.path, headers: opts.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    for (const c of opts.chunks ?? []) req.write(c);
    req.end();
  });
}

describe(`Refused requests cost almost nothing (${backend})`, () => {
  const svc = useTestApp();

  const auditOf = async (requestId: string | null) => svc.app.db('audit_log').where({ requestId }).first();

  it('when 1,000 anonymous 60 KiB POSTs arrive, then each is refused 401 and the database grows by less than 5 MB', async () => {
    const body = JSON.stringify({ pickup: { iata: 'CMB' }, note: 'x'.repeat(60 * 1024 - 40) });
    expect(Buffer.byteLength(body)).toBeLessThan(60 * 1024);
    await svc.call('GET', '/transfers/v1/ping'); // the month's partition and the first pages exist before we measure
    const before = await databaseBytes(svc.app);
    const statuses: number[] = [];
    for (let batch = 0; batch < 50; batch += 1) {
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${svc.app.url}/transfers/v1/quotes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body }).then(
            async (r) => (await r.arrayBuffer(), r.status),
          ),
        ),
      );
      statuses.push(...replies);
    }
    const grown = (await databaseBytes(svc.app)) - before;
    expect(statuses.filter((s) => s === 401)).toHaveLength(1000);
    expect(grown).toBeLessThan(5 * 1024 * 1024);
    const rows = await svc.app.db('audit_log').where({ path: '/transfers/v1/quotes', status: 401 }).count<{ count: string }[]>('* as count');
    expect(Number(rows[0].count)).toBe(1000);
    // For the README's abuse table.
    console.log(`refused 60 KiB POSTs: ${(grown / 1000).toFixed(0)} bytes of database each (${backend})`);
  });

  it('when a request is refused, then its audit row keeps the body as size, SHA-256 and its first KiB, and a few named headers cut short', async () => {
    const body = JSON.stringify({ note: 'y'.repeat(5000) });
    const junk = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`X-Junk-${i}`, 'z'.repeat(250)]));
    const r = await svc.call('POST', '/transfers/v1/quotes', {
      rawBody: body,
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'u'.repeat(2000), ...junk },
    });
    expect(r.status).toBe(401);
    const row = await auditOf(r.headers.get('x-request-id'));
    // The head stops short of the cut by the run of characters it split (a secret's start cannot survive a cut).
    expect(row.requestBody).toEqual({
      $refused: { bytes: Buffer.byteLength(body), sha256: createHash('sha256').update(body).digest('hex'), head: redactedHead(body, 1024) },
    });
    expect(row.requestBody.$refused.head.length).toBeGreaterThan(900);
    expect(body.startsWith(row.requestBody.$refused.head)).toBe(true);
    // A header it keeps is cut at 256 characters; the 48 it does not keep are only counted.
    expect(row.requestHeaders['user-agent']).toMatch(/^u{256}…\[cut: 2000 characters\]$/);
    expect(row.requestHeaders['x-junk-0']).toBeUndefined();
    expect(row.requestHeaders.$omitted).toEqual({ headers: expect.any(Number), bytes: expect.any(Number) });
    expect(row.requestHeaders.$omitted.headers).toBeGreaterThanOrEqual(48);
    const stored = (
      await svc.app.db.raw(`select octet_length(request_headers::text) as n from audit_log where request_id = ?`, [r.headers.get('x-request-id')])
    ).rows[0].n;
    expect(stored).toBeLessThan(1024);
  });

  it('when a valid key sends an invalid body, then the audit row keeps all of it (the partner debugs with it)', async () => {
    const ops = operator(svc.app.url);
    const { testKey } = await ops.partnerWithKeys('Debugging Partner');
    const body = { pickup: { iata: 'CMB' }, note: 'n'.repeat(3000) };
    const r = await svc.call('POST', '/transfers/v1/quotes', { key: testKey, body });
    expect(r.status).toBe(400);
    // All of it: a note is a traveller's words, kept sealed (it opens back whole for the partner's request log).
    const stored = (await auditOf(r.headers.get('x-request-id'))).requestBody;
    expect(stored.note).toMatch(/^pd1:/);
    expect((await openSealed(svc.app.deps.dataKeys, svc.app.deps.db, [stored]))[0]).toEqual(body);
  });

  it('when a chunked body is over 64 KiB, then 413 in the envelope (401 without a key), audited with a trace, and the connection is closed', async () => {
    const { testKey } = await operator(svc.app.url).partnerWithKeys('Chunked Uploader');
    const chunks = Array.from({ length: 70 }, () => Buffer.alloc(1024, 'a'));
    const send = (headers: Record<string, string>) =>
      raw(svc.app.port, {
        method: 'POST',
        path: '/transfers/v1/quotes',
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', ...headers },
        chunks,
      });
    const r = await send({ Authorization: `Bearer ${testKey}` });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({
      env: 'sandbox',
      error: { code: 'payload_too_large', message: 'The request body is larger than 64 KiB.', details: { limit_bytes: 65536 } },
    });
    expect(r.headers.connection).toBe('close');
    const row = await auditOf(r.headers['x-request-id'] as string);
    expect(row).toMatchObject({ status: 413, env: 'sandbox' });
    expect(row.requestBody.$refused.bytes).toBeGreaterThan(64 * 1024);
    expect(row.requestBody.$refused.head).toBe(redactedHead('a'.repeat(2048), 1024));
    // Without a key: the uniform 401, the same trace.
    const anonymous = await send({});
    expect(anonymous.status).toBe(401);
    expect((await auditOf(anonymous.headers['x-request-id'] as string)).requestBody.$refused.bytes).toBeGreaterThan(64 * 1024);
  });

  it('when the URL is over 8 KiB, then 414 in the envelope and audited, its path cut with its length and digest', async () => {
    const path = `/transfers/v1/bookings/${'A'.repeat(9000)}`;
    const r = await svc.call('GET', path);
    expect(r.status).toBe(414);
    expect(r.body).toEqual({
      env: null,
      error: { code: 'uri_too_long', message: "The request's path and query are longer than 8 KiB.", details: { limit_bytes: 8192 } },
    });
    const row = await auditOf(r.headers.get('x-request-id'));
    expect(row.status).toBe(414);
    expect(row.path).toBe(`${path.slice(0, 2048)}…[cut: ${path.length} bytes, sha256 ${createHash('sha256').update(path).digest('hex')}]`);
  });

  it('when the URL is 3 KiB, then it is answered (no 503) and its audit row keeps it cut', async () => {
    const path = `/transfers/v1/quotes?q=${'%C3%A9'.repeat(500)}`;
    const r = await svc.call('GET', path);
    expect(r.status).toBe(401);
    const row = await auditOf(r.headers.get('x-request-id'));
    expect(row.path.startsWith(path.slice(0, 2048))).toBe(true);
    expect(row.path).toContain(`…[cut: ${path.length} bytes, sha256 `);
  });

  it('when a prototype name is asked for as a guide chapter or an asset, then 404, never a 500', async () => {
    // 404, or 400 where the contract's pattern refuses the name first.
    for (const path of [
      '/transfers/v1/console/guide/constructor',
      '/transfers/v1/console/guide/toString',
      '/transfers/v1/console/guide/__proto__',
      '/transfers/v1/console/assets/constructor',
      '/ops/assets/hasOwnProperty',
    ]) {
      const r = await svc.call('GET', path);
      expect([path, [400, 404].includes(r.status)]).toEqual([path, true]);
    }
    expect((await svc.call('GET', '/transfers/v1/console/guide/constructor')).status).toBe(404);
  });

  it('when anything answers (JSON, a page, a probe, a refusal), then it says X-Content-Type-Options: nosniff', async () => {
    const replies = await Promise.all(
      ['/transfers/v1/ping', '/transfers/v1/console', '/ops/', '/healthz', '/readyz', '/nowhere'].map((p) => svc.call('GET', p)),
    );
    for (const r of replies) expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
