import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { launch } from '../../../src/launch';
import { loadConfig } from '../../../src/config/env';
import { makeLogger } from '../../../src/shared/logger';
import { ManualClock } from '../../../src/shared/clock';

/** `npm start` on a fresh clone: the embedded database under DATA_DIR, no configuration at all. */
describe("A newcomer's first start", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-first-start-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('when started on an empty data dir, then it prints a demo key and a curl that works, and a dispatched demo day with a driver token that drives the first ride now; a restart keeps both', async () => {
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const clock = new ManualClock('2026-12-02T04:00:00Z'); // Wednesday, 09:30 in Colombo
    const first = await launch(config, makeLogger('silent'), { clock });
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

      // A demo day of production bookings, dispatched by the automatic pass (on for the embedded demo).
      const { banner, running } = first;
      expect(banner).toMatch(/Demo day: 10 production bookings of the demo partner for today and tomorrow/);
      const jobs = ((await (await fetch(`${running.url}/ops/v1/jobs?limit=50`, { headers: ops })).json()) as any).data as any[];
      expect(jobs).toHaveLength(10);
      // Today and tomorrow, all ahead; the automatic pass (on for the embedded demo) dispatched them.
      expect(jobs.every((j) => j.pickup_at > '2026-12-02T04:00:00.000Z' && j.pickup_at < '2026-12-04T00:00:00.000Z')).toBe(true);
      expect(jobs.filter((j) => j.assigned_by === 'plan').length).toBeGreaterThanOrEqual(8);
      // An arrival at 23:50 that ends after midnight, and one at 02:30.
      const night = jobs.find((j) => j.pickup_at === '2026-12-02T18:20:00.000Z')!;
      expect(night).toMatchObject({ pickup: { iata: 'CMB' }, flight_number: 'EK650' });
      expect(night.dropoff_at > '2026-12-02T18:30:00.000Z').toBe(true);
      expect(jobs.some((j) => j.pickup_at === '2026-12-02T21:00:00.000Z')).toBe(true);

      // The first ride: 11:00, its driver's token printed; the driver app sets off at once and the tracking page follows.
      const token = /with the driver's token: (drv_\S+)/.exec(banner)![1];
      const soonest = jobs[0];
      expect(soonest.pickup_at).toBe('2026-12-02T05:30:00.000Z');
      expect(banner).toContain(`Drive the first ride now: ${soonest.driver.name} (${soonest.vehicle.plate})`);
      const drive = await fetch(`${running.url}/driver/v1/jobs/${soonest.job_id}/status`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'en_route' }),
      });
      expect(drive.status).toBe(200);
      const tracking = /tracking page: (\S+)/.exec(banner)![1];
      const followed = await fetch(tracking.replace('http://localhost:0', running.url));
      expect(followed.status).toBe(200);
      expect(await followed.text()).toContain(soonest.driver.name.split(' ')[0]);
    } finally {
      await first.running.stop();
    }
    const second = await launch(config, makeLogger('silent'), { clock });
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
    expect(secondBanner).not.toContain('Demo day');
  });
});
