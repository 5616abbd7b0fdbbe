import net from 'node:net';
import { backend, testConfig } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';
import { eventually } from '../../support/eventually';

/**
 * How much one client can make the audit log store: every path a request can take is bounded per row, and the
 * figures (printed for docs/reliability.md) are measured, not assumed.
 */
const rowBytes = `coalesce(octet_length(request_headers::text), 0) + coalesce(octet_length(request_body::text), 0)
  + coalesce(octet_length(response_headers::text), 0) + coalesce(octet_length(response_body::text), 0) + octet_length(path)`;

function rawExchange(port: number, bytes: string, localAddress: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress });
    const chunks: Buffer[] = [];
    s.on('data', (c) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    s.write(bytes);
  });
}

describe(`What one client can make the audit log store (${backend})`, () => {
  // A standing clock: the anonymous bucket (burst 5) does not refill during the test.
  const svc = useTestApp({ partner: 'Growth Travel', env: { ANON_BURST: '5', ANON_RATE_PER_S: '1' } });
  // (A refusal the parser made is answered first and audited right after: its row is waited for.)
  const stored = (requestId: string) =>
    eventually(
      `the audit row of ${requestId}`,
      async () => {
        const row = (await svc.app.db.raw(`select ${rowBytes} as n from audit_log where request_id = ?`, [requestId])).rows[0];
        return row && Number(row.n);
      },
      5000,
    );
  const junkHeaders = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`X-Junk-${i}`, 'j'.repeat(250)]));
  const figures: string[] = [];

  afterAll(() => console.log(`audit growth per request (${backend}):\n  ${figures.join('\n  ')}`));

  it('when a keyless request carries 48 headers of 250 characters and a 60 KB body, then its row (401, then 429) stays under 3 KB', async () => {
    const body = JSON.stringify({ note: 'n'.repeat(60_000) });
    const sizes: Array<[number, number]> = [];
    for (let i = 0; i < 7; i += 1) {
      const r = await svc.call('POST', '/transfers/v1/quotes', { rawBody: body, headers: { 'Content-Type': 'application/json', ...junkHeaders } });
      sizes.push([r.status, await stored(r.headers.get('x-request-id')!)]);
    }
    expect(sizes.map(([s]) => s)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    for (const [, n] of sizes) expect(n).toBeLessThan(3 * 1024);
    figures.push(`refused with 48 headers and 60 KB: ${sizes[0][1]} B (401), ${sizes[6][1]} B (429); was 15.5 KB`);
  });

  it("when requests the parser refuses arrive, then each row keeps at most a KiB of what arrived, and none once the client's bucket is empty", async () => {
    const app = svc.app;
    const sizes: Array<[number, number]> = [];
    // From an address of its own (127.0.0.1's bucket was emptied above): 5 answered 400, then 429.
    for (let i = 0; i < 7; i += 1) {
      const text = await rawExchange(app.port, `GET /x HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(15_000)}\r\nBad Header: 1\r\n\r\n`, '127.0.0.77');
      const id = /x-request-id: (\S+)/i.exec(text)![1];
      sizes.push([Number(text.split(' ')[1]), await stored(id)]);
    }
    expect(sizes.map(([s]) => s)).toEqual([400, 400, 400, 400, 400, 429, 429]);
    for (const [, n] of sizes) expect(n).toBeLessThan(2.5 * 1024);
    expect(sizes[6][1]).toBeLessThan(sizes[0][1]);
    figures.push(`refused by the parser (a 15 KB head): ${sizes[0][1]} B (400), ${sizes[6][1]} B (429); was 2.8 KB each, not limited`);
  });

  it('when an admitted request is answered 400 with a 64 KiB body, then its row keeps the body within the 64 KiB cap, and a sandbox key is limited', async () => {
    const body = { pickup: { name: 'p'.repeat(63_000) } };
    const r = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body });
    expect(r.status).toBe(400);
    const n = await stored(r.headers.get('x-request-id')!);
    expect(n).toBeLessThan(70 * 1024);
    // The defaults (the tests' config lifts the sandbox limit).
    const { requestsPerSecond, burst } = testConfig({ SANDBOX_BURST: undefined }).sandboxLimit;
    figures.push(
      `admitted with a 63 KB body: ${n} B; a sandbox key stores at most ${burst} such rows at once and ${requestsPerSecond} a second after (${Math.round((requestsPerSecond * n) / 1024)} KiB/s)`,
    );
  });
});
