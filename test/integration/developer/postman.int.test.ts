import { startWebhookReceiver, type WebhookReceiver } from '../../../simulators/partner/webhook-receiver';
import { systemClock } from '../../../src/shared/clock';
import { operator } from '../../support/fixtures';
import { client } from '../../support/http';
import { freePort } from '../../support/net';
import { startTestApp, type TestApp } from '../../support/test-app';

/** What this test reads of newman's run summary (newman ships no types). */
interface NewmanSummary {
  run: {
    stats: Record<'requests' | 'assertions' | 'testScripts' | 'prerequestScripts', { total: number; failed: number }>;
    failures: Array<{ error: { name: string; message: string; test?: string }; source?: { name?: string } }>;
    executions: Array<{ item: { name: string }; response?: { code: number } }>;
  };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const newman = require('newman') as { run(options: object, cb: (err: Error | null, summary: NewmanSummary) => void): void };

type Variable = { key: string; value: string };

/**
 * The served Postman collection, run by newman as a partner runs it: against the service in-process (the real clock:
 * the collection quotes 3 days ahead of now), with a sandbox key and a webhook receiver of the test's own.
 */
describe('The Postman collection, run by newman', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    app = await startTestApp({ clock: systemClock, env: { PORT: String(port), PUBLIC_BASE_URL: base, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });
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

  const run = (collection: object) =>
    new Promise<NewmanSummary>((resolve, reject) =>
      newman.run({ collection, reporters: [], timeoutRequest: 15_000 }, (err, s) => (err ? reject(err) : resolve(s))),
    );

  it('when a sandbox partner runs the collection, then every request passes its tests, at least 30 assertions in all', async () => {
    const partner = await operator(app.url).partnerWithKeys('Postman Runner');
    const collection = await servedCollection({ baseUrl: `${app.url}/transfers/v1`, apiKey: partner.testKey, webhookUrl: `${receiver.url}/hooks` });
    const summary = await run(collection);

    const { stats, failures, executions } = summary.run;
    const line = `newman: ${stats.requests.total} requests, ${stats.assertions.total - stats.assertions.failed} assertions passed, ${stats.assertions.failed} failed`;
    // The run request by request, and each failure, when something is wrong; the counts always.
    if (failures.length || stats.assertions.total < 30)
      console.log(
        [
          line,
          ...executions.map((e) => `  ${e.response?.code ?? '---'} ${e.item.name}`),
          ...failures.map((f) => `  FAILED ${f.source?.name ?? '?'}: ${f.error.test ?? f.error.name}: ${f.error.message}`),
        ].join('\n'),
      );
    else console.log(line);
    expect({ failures: failures.map((f) => `${f.source?.name}: ${f.error.test ?? f.error.name}: ${f.error.message}`) }).toEqual({ failures: [] });
    expect(stats.assertions.failed).toBe(0);
    expect(stats.testScripts.failed).toBe(0);
    expect(stats.prerequestScripts.failed).toBe(0);
    expect(stats.assertions.total).toBeGreaterThanOrEqual(30);
    // The run's webhook endpoint received its deliveries (the ping at least).
    await receiver.waitFor((d) => d.some((x) => x.body.includes('"type":"ping"')), 10_000);
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
