import v8 from 'node:v8';
import vm from 'node:vm';
import { AUDIT_BODY_CAP } from '../../../src/data/repositories/audit-repository';
import { AUDIT_PAGE_BYTES, LIST_VALUE_MAX } from '../../../src/data/repositories/audit-reads';
import { useTestApp } from '../../support/use-test-app';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
/** The heap after a full collection: what the process still holds. */
const heldBytes = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

/**
 * Reading the audit log must not make it grow by what was read (each read used to store its whole answer, so the
 * next read returned twice as much, until the process ran out of memory), and no read or stored row is unbounded.
 */
describe('Audit reads and stored bodies are bounded', () => {
  const svc = useTestApp({ partner: 'Big Bodies Travel' });
  const rowOf = async (requestId: string) => (await svc.app.db('audit_log').where({ requestId }))[0];
  const largestStored = async () =>
    (
      await svc.app.db.raw(
        `select max(greatest(octet_length(request_body::text), octet_length(response_body::text), octet_length(request_headers::text), octet_length(response_headers::text))) as n from audit_log`,
      )
    ).rows[0].n as number;

  it('when the console reads the audit page 50 times in a row, then each read is stored as a digest and the heap stays flat', async () => {
    const sizes: number[] = [];
    let heapAfter10 = 0;
    for (let i = 1; i <= 50; i += 1) {
      const r = await svc.ops.call('GET', '/audit?limit=25');
      expect(r.status).toBe(200);
      sizes.push(r.text.length);
      if (i === 10) heapAfter10 = heldBytes();
    }
    const heapAfter50 = heldBytes();
    // Each read answers about the same (it lists the digests of the reads before it), never twice the one before.
    // (Once the page is full: the first 25 reads list fewer entries.)
    expect(Math.max(...sizes.slice(25))).toBeLessThan(1.5 * Math.min(...sizes.slice(25)));
    expect(heapAfter50 - heapAfter10).toBeLessThan(32 * 1024 * 1024);
    const last = await svc.ops.call('GET', '/audit?limit=1&path=/ops/v1/audit');
    const [entry] = last.body.data;
    expect(entry.response_body).toEqual({
      $omitted: 'echoes stored exchanges',
      rows: 25,
      bytes: expect.any(Number),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await largestStored()).toBeLessThan(AUDIT_BODY_CAP + 1024);
  });

  it('when a partner sends 500 bodies of 45 KB and an operator reads 500 entries, then the page stops at its byte budget, cut entries are read whole, and the service stays up', async () => {
    // A place's own text is sealed in the audit row (a third longer, as base64): 45,000 characters stay under the cap.
    const big = { pickup: { name: 'x'.repeat(45_000) }, dropoff: { name: 'Kandy' } };
    // As the attack was measured: 500 of them (each answered 400, its body kept whole as an admitted request's is).
    for (let batch = 0; batch < 50; batch += 1) {
      const replies = await Promise.all(Array.from({ length: 10 }, () => svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body: big })));
      expect(replies.map((r) => r.status)).toEqual(Array(10).fill(400));
    }
    const page = await svc.ops.call('GET', '/audit?limit=500');
    expect(page.status).toBe(200);
    expect(page.text.length).toBeLessThan(AUDIT_PAGE_BYTES + 64 * 1024);
    expect(page.body.next_before_id).toBe(page.body.data[page.body.data.length - 1].id);
    const cut = page.body.data.find((e: { path: string; cut: boolean }) => e.path === '/transfers/v1/quotes' && e.cut);
    expect(cut.request_body).toEqual({ $cut: { bytes: expect.any(Number), head: expect.stringContaining('"pickup"') } });
    expect(cut.request_body.$cut.bytes).toBeGreaterThan(LIST_VALUE_MAX);
    // The entry alone, whole: the body as the partner sent it (it was under the 64 KiB cap).
    const whole = await svc.ops.call('GET', `/audit/${cut.id}`);
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ id: cut.id, cut: false, request_body: big });
    // The next page carries on where this one stopped.
    const next = await svc.ops.call('GET', `/audit?limit=500&before_id=${page.body.next_before_id}`);
    expect(Number(next.body.data[0].id)).toBeLessThan(Number(page.body.next_before_id));
    // Neither read stored what it answered, and the service still answers.
    for (const r of [page, whole]) expect((await rowOf(r.headers.get('x-request-id')!)).responseBody).toMatchObject({ $omitted: 'echoes stored exchanges' });
    expect((await svc.call('GET', '/healthz')).status).toBe(200);
    expect((await svc.ops.call('GET', '/audit/999999999')).status).toBe(404);
  });

  it("when the partner reads its request log entry for a large request, then the read's own row is a digest", async () => {
    const big = { pickup: { name: 'y'.repeat(45_000) }, dropoff: { name: 'Galle' } };
    const sent = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: big });
    const id = sent.headers.get('x-request-id')!;
    const read = await svc.call('GET', `/transfers/v1/requests/${id}`, { key: svc.partner.testKey });
    expect(read.status).toBe(200);
    expect(read.body.request.body).toEqual(big);
    const row = await rowOf(read.headers.get('x-request-id')!);
    expect(row.responseBody).toEqual({ $omitted: 'echoes stored exchanges', rows: 1, bytes: Buffer.byteLength(read.text), sha256: expect.any(String) });
  });

  it('when a response would be larger than the cap, then its row keeps its size, digest and head', async () => {
    // An outbound exchange or a future route: whatever writes the row, the body is capped where rows are written.
    const { appendAudit } = await import('../../../src/data/repositories/audit-repository');
    const huge = JSON.stringify({ data: 'z'.repeat(AUDIT_BODY_CAP * 2) });
    await appendAudit(svc.app.deps.db, {
      surface: 'webhooks',
      direction: 'outbound',
      method: 'POST',
      path: 'https://example.test/hook',
      status: 200,
      partnerId: null,
      env: null,
      requestId: 'req_capped_test',
      requestHeaders: '{}',
      requestBody: null,
      responseHeaders: '{}',
      responseBody: huge,
      durationMs: 1,
    });
    const row = await rowOf('req_capped_test');
    expect(row.responseBody).toEqual({ $cut: { bytes: Buffer.byteLength(huge), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), head: huge.slice(0, 2048) } });
  });
});
