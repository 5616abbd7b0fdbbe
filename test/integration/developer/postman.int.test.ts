import { startWebhookReceiver, type WebhookReceiver } from '../../../simulators/partner/webhook-receiver';
import { systemClock } from '../../../src/shared/clock';
import { operator } from '../../support/fixtures';
import { client } from '../../support/http';
import { freePort } from '../../support/net';
import { startTestApp, type TestApp } from '../../support/test-app';
import type { Resolve } from '../../../src/domain/webhooks/targets';

/** What this test reads of newman's run summary (newman ships no types). */
interface NewmanSummary {
  run: {
    stats: Record<'requests' | 'assertions' | 'testScripts' | 'prerequestScripts', { total: number; failed: number }>;
    failures: Array<{ error: { name: string; message: string; test?: string }; source?: { name?: string } }>;
    executions: Array<{ item: { name: string }; response?: { code: number } }>;
  };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const newman = require('newman') as {
  run(
    options: object,
    cb: (err: Error | null, summary: NewmanSummary) => void,
  ): { on(event: 'console', listener: (err: Error | null, o: { level: string; messages: unknown[] }) => void): unknown };
};

type Variable = { key: string; value: string };

/** A machine with no outside network: only `localhost` resolves (addresses need no resolving). */
const offline: Resolve = async (hostname) => {
  if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/**
 * The served Postman collection, run by newman as a partner runs it: against the service in-process (the real clock:
 * the collection quotes 3 days ahead of now), with a sandbox key, and a webhook receiver of the test's own or none. The
 * service resolves no name but `localhost`, as on a machine without outside network.
 */
describe('The Postman collection, run by newman', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    app = await startTestApp({
      clock: systemClock,
      resolveHost: offline,
      env: { PORT: String(port), PUBLIC_BASE_URL: base, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    receiver = await startWebhookReceiver({ respond: () => 200 });
  });
  afterAll(async () => {
    await receiver?.close();
    await app?.close();
  });

  /** The served collection with these collection variables set. */
  async function servedCollection(values: Record<string, string>) {
    const served = await client(app.url)('GET', '/transfers/v1/postman.json');
    expect(served.status).toBe(200);
    const collection = served.body as { variable: Variable[] };
    expect(collection.variable.find((v) => v.key === 'apiKey')?.value).toBe('');
    for (const [key, value] of Object.entries(values)) {
      const v = collection.variable.find((x) => x.key === key);
      if (!v) throw new Error(`the collection has no variable ${key}`);
      v.value = value;
    }
    return collection;
  }

  /** Runs the collection (or one folder of it); `logs` collects what its scripts print (console.log). */
  const run = (collection: object, opts: { folder?: string; logs?: string[] } = {}) =>
    new Promise<NewmanSummary>((resolve, reject) =>
      newman
        .run({ collection, folder: opts.folder, reporters: [], timeoutRequest: 15_000 }, (err, s) => (err ? reject(err) : resolve(s)))
        .on('console', (_err, o) => opts.logs?.push(o.messages.map(String).join(' '))),
    );

  /** The run's counts as one line, and request by request with each failure when something failed. */
  function report(summary: NewmanSummary): void {
    const { stats, failures, executions } = summary.run;
    const line = `newman: ${stats.requests.total} requests, ${stats.assertions.total - stats.assertions.failed} assertions passed, ${stats.assertions.failed} failed`;
    if (failures.length || stats.assertions.total < 30)
      console.log(
        [
          line,
          ...executions.map((e) => `  ${e.response?.code ?? '---'} ${e.item.name}`),
          ...failures.map((f) => `  FAILED ${f.source?.name ?? '?'}: ${f.error.test ?? f.error.name}: ${f.error.message}`),
        ].join('\n'),
      );
    else console.log(line);
  }
  const failuresOf = (summary: NewmanSummary) => summary.run.failures.map((f) => `${f.source?.name}: ${f.error.test ?? f.error.name}: ${f.error.message}`);

  it('when a sandbox partner runs the collection, then every request passes its tests, at least 30 assertions in all', async () => {
    const partner = await operator(app.url).partnerWithKeys('Postman Runner');
    const collection = await servedCollection({ baseUrl: `${app.url}/transfers/v1`, apiKey: partner.testKey, webhookUrl: `${receiver.url}/hooks` });
    const summary = await run(collection);

    const { stats } = summary.run;
    report(summary);
    expect({ failures: failuresOf(summary) }).toEqual({ failures: [] });
    expect(stats.assertions.failed).toBe(0);
    expect(stats.testScripts.failed).toBe(0);
    expect(stats.prerequestScripts.failed).toBe(0);
    expect(stats.assertions.total).toBeGreaterThanOrEqual(30);
    // The run's webhook endpoint received its deliveries (the ping at least).
    await receiver.waitFor((d) => d.some((x) => x.body.includes('"type":"ping"')), 10_000);
  });

  it('when the collection is run as served, only the key set, on a machine without outside network, then every request passes, and the run says webhooks need webhookUrl', async () => {
    const partner = await operator(app.url).partnerWithKeys('Postman Day One');
    const collection = await servedCollection({ baseUrl: `${app.url}/transfers/v1`, apiKey: partner.testKey });
    // Without the run's ping to start from, the events are listed from the partner's oldest, a page at a time: pages of
    // 2 here, so that it pages.
    const listEvents = (collection as unknown as { item: Array<{ item: Array<{ name: string; request: { url: { query: Variable[] } } }> }> }).item
      .flatMap((f) => f.item)
      .find((i) => i.name.startsWith('List events'))!;
    listEvents.request.url.query.find((q) => q.key === 'limit')!.value = '2';
    const logs: string[] = [];
    const summary = await run(collection, { logs });
    report(summary);
    const { stats, executions } = summary.run;
    expect({ failures: failuresOf(summary) }).toEqual({ failures: [] });
    expect(stats.testScripts.failed).toBe(0);
    expect(stats.prerequestScripts.failed).toBe(0);
    expect(stats.assertions.total).toBeGreaterThanOrEqual(30);
    // The flow ran to its end (quote, book, change, cancel, events, request log) …
    const names = executions.map((e) => e.item.name);
    for (const name of ['Quote a journey', 'Book an offer', 'Cancel a booking', 'List events', 'One of your requests'])
      expect(names.some((n) => n.startsWith(name))).toBe(true);
    expect(names.filter((n) => n.startsWith('List events')).length).toBeGreaterThanOrEqual(2);
    // … and said, once, that the webhook requests need webhookUrl, and registered no endpoint.
    expect(logs.filter((l) => /webhookUrl/.test(l))).toHaveLength(1);
    const endpoints = await client(app.url)('GET', '/transfers/v1/webhook_endpoints', { key: partner.testKey });
    expect(endpoints.body).toMatchObject({ data: [] });
  });

  it('when webhookUrl names a host the deployment cannot resolve, then the registration fails naming webhookUrl and why, and the requests that need the endpoint are skipped, not failed', async () => {
    const partner = await operator(app.url).partnerWithKeys('Postman Offline Hooks');
    const collection = await servedCollection({
      baseUrl: `${app.url}/transfers/v1`,
      apiKey: partner.testKey,
      webhookUrl: 'https://hooks.example.com/lanka-transfers',
    });
    const summary = await run(collection, { folder: '2. Webhooks: register an endpoint' });
    const failures = failuresOf(summary);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      /^Register a webhook endpoint.*: 201 Created: .*webhookUrl \(https:\/\/hooks\.example\.com\/lanka-transfers\).*does not resolve/i,
    );
    // The endpoint's requests after it were not sent.
    expect(summary.run.executions.filter((e) => e.response).map((e) => e.item.name)).toEqual([
      expect.stringMatching(/^Register a webhook endpoint/),
      expect.stringMatching(/^List this environment's webhook endpoints/),
    ]);
  });

  it('when the key is a live one, then the run sends nothing, and says why', async () => {
    const partner = await operator(app.url).partnerWithKeys('Postman Live Runner');
    const collection = await servedCollection({ baseUrl: `${app.url}/transfers/v1`, apiKey: partner.liveKey });
    const { stats, failures } = (await run(collection)).run;
    expect(stats.requests.total).toBe(0);
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) expect(f.error.test).toMatch(/^a sandbox key/);
  });
});
