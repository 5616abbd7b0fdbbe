import { backend } from '../../support/test-app';
import { startWebhookTestApp, type WebhookTestApp } from '../../support/webhooks';
import { claimWebhookDeliveries } from '../../../src/data/repositories/webhook-delivery-repository';
import type { ClaimedRow } from '../../../src/data/repositories/outbox-repository';

/**
 * The webhook claim is fair (issue 28): one attempt in flight per endpoint, a few per partner, endpoints served
 * round robin, each environment on its own; and it holds when claims run at once (on PostgreSQL, on connections of
 * their own, as several instances' would).
 */
describe(`Fair webhook claim (${backend})`, () => {
  let h: WebhookTestApp;
  const LEASE_MS = 12_000;

  beforeAll(async () => {
    h = await startWebhookTestApp();
  });
  afterAll(() => h.close());
  // Each test starts with nothing in flight or due.
  beforeEach(async () => {
    await h.app.db('outbox').where({ kind: 'webhook', status: 'pending' }).update({ status: 'failed', lockedUntil: null });
    await h.app.db('webhook_endpoints').update({ busyUntil: null });
  });

  const claim = (limit: number, over: { perPartner?: number; env?: 'sandbox' | 'production'; at?: Date } = {}) => {
    const now = over.at ?? h.app.clock.now();
    return claimWebhookDeliveries(h.app.deps.db, {
      env: over.env ?? 'sandbox',
      now,
      leaseUntil: new Date(now.getTime() + LEASE_MS),
      limit,
      perPartner: over.perPartner ?? 4,
      exclude: [],
    });
  };

  /** A partner with `endpoints` endpoints and `pings` pings queued to each; their ids. */
  async function partnerWith(name: string, endpoints: number, pings: number): Promise<string[]> {
    const p = await h.ops.partnerWithKeys(name);
    const ids: string[] = [];
    for (let i = 0; i < endpoints; i += 1) ids.push((await h.endpoint(p.testKey)).id);
    for (let n = 0; n < pings; n += 1) {
      for (const id of ids) expect((await h.call('POST', `/transfers/v1/webhook_endpoints/${id}/test`, { key: p.testKey })).status).toBe(202);
    }
    return ids;
  }

  const endpointsOf = (rows: ClaimedRow[]) => rows.map((r) => r.endpointId);

  it('when a partner with many endpoints queued first and another partner after, then the first claim serves the other partner too, one delivery per endpoint', async () => {
    const busy = await partnerWith('Busy Partner', 3, 3);
    const [quiet] = await partnerWith('Quiet Partner', 1, 1);

    const first = await claim(3);
    // Partners take turns: by lowest id the three would all have been the busy partner's.
    expect(endpointsOf(first)).toContain(quiet);
    expect(new Set(endpointsOf(first)).size).toBe(3);

    // The busy partner's endpoints with an attempt in flight are not claimed again: only its idle one is.
    const second = await claim(10);
    expect(endpointsOf(second)).toHaveLength(1);
    expect(busy).toContain(second[0].endpointId);
    expect(endpointsOf(first)).not.toContain(second[0].endpointId);
    expect(await claim(10)).toEqual([]);

    // Once the leases have expired (a worker died), every endpoint is claimed again, each once.
    const later = await claim(10, { at: new Date(h.app.clock.now().getTime() + LEASE_MS + 1) });
    expect(endpointsOf(later).sort()).toEqual([...busy, quiet].sort());
  });

  it('when a partner has more endpoints ready than its share, then only its share is claimed at once', async () => {
    const many = await partnerWith('Many Endpoints Partner', 5, 1);
    const claimed = await claim(10, { perPartner: 2 });
    expect(endpointsOf(claimed)).toHaveLength(2);
    expect(endpointsOf(claimed).every((e) => many.includes(e!))).toBe(true);
    expect(await claim(10, { perPartner: 2 })).toEqual([]);
  });

  it("when sandbox deliveries are due, then the production lane's claim takes none of them", async () => {
    await partnerWith('Sandbox Only Partner', 2, 1);
    expect(await claim(10, { env: 'production' })).toEqual([]);
    expect(await claim(10)).toHaveLength(2);
  });

  it('when several claims run at once, then no endpoint gets two attempts and no delivery is claimed twice', async () => {
    const ids = [...(await partnerWith('Race One', 4, 3)), ...(await partnerWith('Race Two', 4, 3))];
    const rounds = await Promise.all(Array.from({ length: 6 }, () => claim(3)));
    const all = rounds.flat();
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    expect(new Set(endpointsOf(all)).size).toBe(all.length);
    expect(all.length).toBe(8);
    expect(new Set(endpointsOf(all))).toEqual(new Set(ids));
  });
});
