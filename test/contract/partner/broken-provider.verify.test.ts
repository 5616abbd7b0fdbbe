import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Verifier } from '@pact-foundation/pact';
import { startTestApp, type TestApp } from '../../support/test-app';
import { systemClock } from '../../../src/shared/clock';
import { operator } from '../../support/fixtures';
import { transfersStates } from '../../../harness/pact/state-handlers/transfers';
import { certify } from '../../../simulators/partner/certify';
import { pactFile } from '../../support/pacts';

const PARTNER_PACT = pactFile('PartnerSimulator-TransfersApi');

/** A proxy in front of the service that breaks one rule: idempotent replays answer 201 instead of 200. */
async function replayAs201Proxy(upstream: string) {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const out = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      const status = up.statusCode === 200 && up.headers['idempotent-replayed'] === 'true' ? 201 : (up.statusCode ?? 502);
      res.writeHead(status, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('The partner checks against a service that answers replays with 201', () => {
  let app: TestApp;
  let proxy: Awaited<ReturnType<typeof replayAs201Proxy>>;

  beforeAll(async () => {
    // Slow answers held longer than the certification's client timeout (3 s), as the sandbox's 10 s are. The real
    // clock: sandbox endpoints may reach this machine by default now, so the webhook flow runs, and its retry is due
    // 5 s after the first attempt by the worker's clock.
    app = await startTestApp({ clock: systemClock, env: { OUTBOX_POLL_MS: '100', SANDBOX_SLOW_MS: '4000' } });
    proxy = await replayAs201Proxy(app.url);
  });
  afterAll(async () => {
    await proxy.close();
    await app.close();
  });

  it('when the pact is verified through the proxy, then verification fails', async () => {
    const states = transfersStates({ baseUrl: app.url, operatorToken: app.operatorToken });
    const verification = new Verifier({
      provider: 'TransfersApi',
      providerBaseUrl: proxy.url,
      pactUrls: [PARTNER_PACT],
      stateHandlers: states.stateHandlers,
      requestFilter: states.requestFilter,
      logLevel: 'error',
    }).verifyProvider();
    const err = await verification.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeDefined();
    // pact-core rejects with the verification result as JSON: only the replay interaction may have failed.
    const failures = (JSON.parse(err!.message) as { errors: Array<{ interaction: string }> }).errors.map((e) => e.interaction);
    expect(failures).toEqual([expect.stringMatching(/a replay of a booking with the same Idempotency-Key and body$/)]);
  });

  it('when certification runs through the proxy, then the replay requirements, and only they, fail', async () => {
    const partner = await operator(app.url).partnerWithKeys('Broken Proxy Agency');
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-broken-'));
    try {
      const report = await certify({ baseUrl: proxy.url, key: partner.testKey, outDir: out });
      expect(report.result).toBe('failed');
      const failed = report.requirements.filter((r) => r.status === 'fail');
      // The replay check, and the replay after a timed-out booking.
      expect(failed.map((r) => r.id)).toEqual(['booking.idempotent_replay', 'retry.timeout_same_key']);
      expect(failed[1].detail).toMatch(/status of the replay: expected 200, got 201/);
      expect(failed[0].detail).toMatch(/status: expected 200, got 201/);
      expect(failed[0].evidence[0]).toMatchObject({ status: 201, request_id: expect.any(String) });
      expect(fs.readFileSync(path.join(out, 'certification-report.html'), 'utf8')).toMatch(/<tr class="fail" id="req-booking\.idempotent_replay">/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
