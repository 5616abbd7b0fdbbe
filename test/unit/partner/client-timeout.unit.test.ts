import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createPartnerClient, simulatingFirst } from '../../../simulators/partner/client';
import { asCertification, CERTIFY_USER_AGENT } from '../../../simulators/partner/certify';

// The garbage collector on demand, as the load of a full test run brings it.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe("the partner client's timeout", () => {
  let server: http.Server;
  let base: string;
  const seen: http.IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    // Never answers: only the client's timeout ends a request.
    server = http.createServer((req) => void seen.push(req.headers));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("when a request goes through the simulated fault and the certification's User-Agent, and the collector runs meanwhile, then it still times out", async () => {
    const attempts: Array<{ status: number | null; error?: string; simulated: string | null }> = [];
    const client = createPartnerClient({
      baseUrl: base,
      apiKey: 'sk_test_x',
      timeoutMs: 2_000,
      fetch: simulatingFirst('slow', 1, (a) => attempts.push(a), asCertification()),
    });
    const settled = client.ping().then(
      () => 'answered',
      (e: Error) => e.name,
    );
    // Once the request is at the server (and no sooner: a busy worker might not have sent it yet), the collector
    // runs: the copies the wrappers made are collected unless something holds them.
    if ((await Promise.race([once(server, 'request').then(() => 'arrived'), settled])) === 'arrived') {
      for (let i = 0; i < 5; i += 1) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(seen.at(-1)).toMatchObject({ 'sandbox-simulate': 'slow', 'user-agent': CERTIFY_USER_AGENT });
    }
    // Without the timeout the request would wait for ever: jest's own limit, short, says so.
    expect(await settled).toBe('TimeoutError');
    expect(attempts).toEqual([
      { method: 'GET', path: '/transfers/v1/ping', idempotencyKey: null, status: null, requestId: null, simulated: 'slow', error: 'TimeoutError' },
    ]);
  }, 10_000);
});
