import OpenAPIBackend from 'openapi-backend';
import addFormats from 'ajv-formats';
import { loadContract } from '../../../src/http/surface';
import { contractDocuments } from '../../../src/http/transfers/contract-documents';
import { RUN, operationsByRoute, routeOf, type ContractPaths } from '../../../src/http/transfers/postman-collection';

/**
 * Operations of the partner contract the collection's run leaves out, each with why. None today: even the sandbox
 * helpers and the contract documents run. (Every tag of transfers-v1.yaml is a partner's.)
 */
const NOT_RUN: Record<string, string> = {};

/** Plausible values of the run's variables, to check each request as it is sent against the contract. */
const SAMPLES: Record<string, string> = {
  baseUrl: 'https://transfers.example.lk/transfers/v1',
  apiKey: 'svc_sk_test_0000000000000_secret',
  webhookUrl: 'https://example.com/hooks',
  pickupDatetime: '2026-12-04T09:30:00+05:30',
  changedPickupDatetime: '2026-12-04T11:30:00+05:30',
  partnerReference: 'POSTMAN-1796000000000',
  quoteId: '01a216a80d7c6b1a0deb98e1be5527f9',
  offerId: '01a216a80d7c1e5a746ceac798f4df47',
  otherOfferId: '01a216a80d7cb50a360b018256a27b51',
  bookingRef: 'GM32DFCW',
  bookingRequestId: 'req_0123456789abcdef01234567',
  etag: '"2"',
  flightNumber: 'UL506',
  pickupDate: '2026-12-04',
  changeQuoteId: '01a216a80e3bad0be03bc79f7c2cc173',
  changeOfferId: '01a216a80e3ba41aac959b699bd09193',
  endpointId: 'we_b8m3zup6fy',
  pingEventId: 'evt_c67a15890ea9e1c696b4a6db',
  eventsAfter: 'evt_c67a15890ea9e1c696b4a6db',
  eventId: 'evt_01a216a80ddb21c8de3c5712',
};
const PRESET = ['baseUrl', 'apiKey', 'webhookUrl'];

type Script = { listen: string; script: { exec: string[] } };
type Item = {
  name: string;
  item?: Item[];
  event?: Script[];
  request?: {
    method: string;
    url: {
      host: string[];
      path: string[];
      query?: Array<{ key: string; value: string; disabled?: boolean }>;
      variable?: Array<{ key: string; value: string }>;
    };
    header?: Array<{ key: string; value: string; disabled?: boolean }>;
    body?: { raw?: string };
    auth?: { type: string };
  };
};

const contract = loadContract('transfers-v1.yaml') as unknown as ContractPaths & {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};
const operationIds = [...operationsByRoute(contract).values()].map((o) => o.operationId);
const scriptOf = (events: Script[] | undefined, listen: string) =>
  (events ?? [])
    .filter((e) => e.listen === listen)
    .flatMap((e) => e.script.exec)
    .join('\n');
const varsIn = (text: string) => [...text.matchAll(/\{\{([^}]+)\}\}/g)].map((m) => m[1]);
const setIn = (script: string) => [...script.matchAll(/pm\.collectionVariables\.set\('(\w+)'/g)].map((m) => m[1]);
const resolve = (text: string) => text.replace(/\{\{(\w+)\}\}/g, (_, v: string) => SAMPLES[v] ?? `<${v}>`);

describe('The Postman collection', () => {
  let collection: { item: Item[]; variable: Array<{ key: string; value: string }>; event: Script[]; auth: unknown };
  let requests: Array<{ folder: string; item: Item; operationId: string }>;
  beforeAll(async () => {
    collection = JSON.parse((await contractDocuments('https://transfers.example.lk').postman()).bytes.toString('utf8'));
    const byRoute = operationsByRoute(contract);
    requests = collection.item.flatMap((f) =>
      (f.item ?? []).map((item) => ({ folder: f.name, item, operationId: byRoute.get(routeOf(item.request as never))!.operationId })),
    );
  });

  it('when it is generated, then the run has every operation of the partner contract once, and RUN names only those', () => {
    expect(requests.map((r) => r.operationId).sort()).toEqual(operationIds.filter((id) => !(id in NOT_RUN)).sort());
    expect(collection.item.map((f) => f.name)).not.toContain('Not in the run yet');
    const planned = RUN.flatMap((f) => f.steps.map((s) => s.operationId));
    expect(new Set(planned).size).toBe(planned.length);
    expect(planned.filter((id) => !operationIds.includes(id))).toEqual([]);
  });

  it('when a request is tested, then its script asserts a status its operation documents, with pm.test', () => {
    for (const { item, operationId } of requests) {
      const test = scriptOf(item.event, 'test');
      expect({ operationId, asserts: /pm\.test\(/.test(test) }).toEqual({ operationId, asserts: true });
      const statuses = [...test.matchAll(/to\.have\.status\((\d{3})\)/g)].map((m) => m[1]);
      const documented = Object.values(contract.paths)
        .flatMap((ops) => Object.values(ops))
        .find((o) => o.operationId === operationId)!.responses;
      expect({ operationId, statuses: statuses.filter((s) => !(s in documented)) }).toEqual({ operationId, statuses: [] });
      expect(statuses.length).toBeGreaterThan(0);
    }
  });

  it('when the run reaches a request, then every variable it sends was declared and set before (the chain holds in this order)', () => {
    const declared = new Set(collection.variable.map((v) => v.key));
    const set = new Set([...PRESET, ...setIn(scriptOf(collection.event, 'prerequest'))]);
    for (const { item, operationId } of requests) {
      setIn(scriptOf(item.event, 'prerequest')).forEach((v) => set.add(v));
      const sent = varsIn(JSON.stringify(item.request)).filter((v) => !v.startsWith('$'));
      expect({ operationId, undeclared: sent.filter((v) => !declared.has(v)) }).toEqual({ operationId, undeclared: [] });
      expect({ operationId, unset: sent.filter((v) => !set.has(v)) }).toEqual({ operationId, unset: [] });
      setIn(scriptOf(item.event, 'test')).forEach((v) => set.add(v));
    }
  });

  it('when a request is sent with plausible variable values, then the contract accepts it (path, query, headers, body)', async () => {
    const api = new OpenAPIBackend({ definition: loadContract('transfers-v1.yaml'), strict: true, customizeAjv: (ajv) => (addFormats(ajv as never), ajv) });
    await api.init();
    for (const { item, operationId } of requests) {
      const r = item.request!;
      const vars = Object.fromEntries((r.url.variable ?? []).map((v) => [v.key, resolve(v.value)]));
      const path = '/' + r.url.path.map((s) => (s.startsWith(':') ? vars[s.slice(1)] : s)).join('/');
      const query = Object.fromEntries((r.url.query ?? []).filter((q) => !q.disabled).map((q) => [q.key, resolve(q.value)]));
      const headers = Object.fromEntries((r.header ?? []).filter((h) => !h.disabled).map((h) => [h.key.toLowerCase(), resolve(h.value)]));
      const body = r.body?.raw ? JSON.parse(resolve(r.body.raw)) : undefined;
      const matched = api.matchOperation({ method: r.method, path, headers, query });
      expect({ operationId, matched: matched?.operationId }).toEqual({ operationId, matched: operationId });
      const v = api.validateRequest({ method: r.method, path, headers, query, body }, operationId);
      expect({ operationId, errors: v.errors ?? [] }).toEqual({ operationId, errors: [] });
    }
  });

  it('when it is imported, then the key is the empty collection variable apiKey used by the bearer auth, the contract documents need none, and Idempotency-Key is fresh', () => {
    expect(collection.auth).toEqual({ type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] });
    expect(collection.variable).toContainEqual(expect.objectContaining({ key: 'apiKey', value: '' }));
    // No webhook target by default: the run then skips its webhook requests (a host of ours may not resolve offline).
    expect(collection.variable).toContainEqual(expect.objectContaining({ key: 'webhookUrl', value: '' }));
    expect(collection.variable).toContainEqual(expect.objectContaining({ key: 'baseUrl', value: 'https://transfers.example.lk/transfers/v1' }));
    expect(JSON.stringify(collection)).not.toMatch(/svc_sk_(test|live)_[0-9a-z]{6,}_[A-Za-z0-9]{6,}/);
    for (const { item, operationId } of requests) {
      const open = Object.values(contract.paths).some((ops) =>
        Object.values(ops).some((o) => o.operationId === operationId && (o as { security?: unknown[] }).security?.length === 0),
      );
      expect({ operationId, auth: item.request!.auth?.type ?? 'inherit' }).toEqual({ operationId, auth: open ? 'noauth' : 'inherit' });
      for (const h of item.request!.header ?? [])
        if (h.key === 'Idempotency-Key')
          expect({ operationId, h }).toEqual({ operationId, h: expect.objectContaining({ value: '{{$guid}}', disabled: false }) });
    }
    const pre = scriptOf(collection.event, 'prerequest');
    expect(pre).toMatch(/pickupDatetime/);
    expect(pre).toMatch(/skipRequest/);
  });
});
