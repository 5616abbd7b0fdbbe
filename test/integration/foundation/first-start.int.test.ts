import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { launch } from '../../../src/launch';
import { loadConfig } from '../../../src/config/env';
import { makeLogger } from '../../../src/shared/logger';

/** `npm start` on a fresh clone: the embedded database under DATA_DIR, no configuration at all. */
describe("A newcomer's first start", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-first-start-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('when started on an empty data dir, then it prints a demo key and a curl that works; a restart keeps both', async () => {
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const first = await launch(config, makeLogger('silent'));
    let secondBanner = '';
    try {
      expect(first.banner).toContain('Operator token (generated');
      expect(first.demoKey).toMatch(/^svc_sk_test_[a-z0-9]{12}_[A-Za-z0-9]{40}$/);
      const curl = first.banner
        .split('\n')
        .find((l) => l.trim().startsWith('curl -s'))!
        .trim();
      // The printed curl names PUBLIC_BASE_URL (localhost:0 here): aim it at the port the test server got.
      const runnable = curl.replace('http://localhost:0', first.running.url);
      const args = runnable
        .match(/"[^"]*"|\S+/g)!
        .slice(1)
        .map((a) => a.replace(/^"|"$/g, ''));
      // Asynchronously: the server answering curl lives in this very process.
      const { stdout } = await promisify(execFile)('curl', args, { encoding: 'utf8' });
      expect(JSON.parse(stdout)).toMatchObject({ env: 'sandbox', ok: true, partner: 'Demo Travel' });
      expect(fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()).toBe(first.running.operatorToken);
      // A small fleet to dispatch, with its drivers.
      expect(first.banner).toContain('Demo fleet: 11 vehicles and 8 drivers');
      // The reference console is where a partner starts: printed, and served.
      const consoleUrl = /Reference console \(sandbox keys only\): (\S+)/.exec(first.banner)![1];
      const page = await fetch(consoleUrl.replace('http://localhost:0', first.running.url));
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      // So is the operator console, where the printed operator token signs in.
      const opsConsole = /Operator console: (\S+)/.exec(first.banner)![1];
      expect(opsConsole).toBe('http://localhost:0/ops/');
      expect((await fetch(opsConsole.replace('http://localhost:0', first.running.url))).status).toBe(200);
      const ops = { Authorization: `Bearer ${first.running.operatorToken}` };
      const vehicles = ((await (await fetch(`${first.running.url}/ops/v1/vehicles?active=true`, { headers: ops })).json()) as any).data;
      expect(vehicles).toHaveLength(11);
      expect(new Set(vehicles.map((v: { fleet_code: string }) => v.fleet_code)).size).toBe(8);
      expect(((await (await fetch(`${first.running.url}/ops/v1/drivers`, { headers: ops })).json()) as any).data).toHaveLength(8);
    } finally {
      await first.running.stop();
    }
    const second = await launch(config, makeLogger('silent'));
    try {
      secondBanner = second.banner;
      expect(second.demoKey).toBeUndefined();
      expect(second.running.operatorToken).toBe(first.running.operatorToken);
      const ping = await fetch(`${second.running.url}/transfers/v1/ping`, { headers: { Authorization: `Bearer ${first.demoKey}` } });
      expect(ping.status).toBe(200);
    } finally {
      await second.running.stop();
    }
    expect(secondBanner).not.toContain('svc_sk_test_');
  });
});
