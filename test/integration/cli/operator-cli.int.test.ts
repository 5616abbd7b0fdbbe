import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { run } from '../../../src/cli/operator';
import { listeningFile, writeListening } from '../../../src/cli/listening';
import { startTestApp, OPERATOR_TOKEN, type TestApp } from '../../support/test-app';
import { operator } from '../../support/fixtures';
import { enqueueOutbound } from '../../../src/domain/outbox/outbox';
import { freePort } from '../../support/net';

const KEY = /^svc_sk_test_[a-z0-9]{12}_[A-Za-z0-9]{40}$/;

describe('Operator CLI', () => {
  let app: TestApp;
  let tmp: string;

  beforeAll(async () => {
    app = await startTestApp();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'operator-cli-'));
  });
  afterAll(async () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    await app.close();
  });

  /** Runs the CLI in-process against the test app, capturing its output. */
  async function cli(args: string[], env: Record<string, string | undefined> = { OPERATOR_TOKEN }, baseUrl: string | null = app.url) {
    let stdout = '';
    let stderr = '';
    const code = await run([...(baseUrl ? ['--base-url', baseUrl] : []), ...args], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env,
    });
    return { code, stdout, stderr };
  }

  async function json(args: string[]) {
    const r = await cli([...args, '--json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(r.stdout);
  }

  const ping = (key: string) => fetch(`${app.url}/transfers/v1/ping`, { headers: { Authorization: `Bearer ${key}` } });

  it('when a partner is created, then it is listed, stored, and shown exactly as the API answers', async () => {
    const created = await cli(['partner', 'create', 'Island Holidays', '--currency', 'EUR']);
    expect(created.code).toBe(0);
    const partnerId = /^partner_id:\s+(ptn_[a-z0-9]{16})$/m.exec(created.stdout)?.[1];
    expect(partnerId).toBeDefined();
    expect(created.stdout).toMatch(/^currency:\s+EUR$/m);

    const list = await json(['partner', 'list']);
    const expected = { name: 'Island Holidays', currency: 'EUR', paused: false };
    expect(list.data).toContainEqual(expect.objectContaining({ partner_id: partnerId, ...expected }));
    expect(await app.db('partners').where({ partner_id: partnerId })).toEqual([expect.objectContaining(expected)]);

    const human = await cli(['partner', 'list']);
    expect(human.stdout.split('\n')[0]).toMatch(/^partner_id\s+name\s+currency\s+paused\s+created_at$/);
    expect(human.stdout).toContain('Island Holidays');

    const viaApi = await operator(app.url).call('GET', `/partners/${partnerId}`);
    expect(await json(['partner', 'show', partnerId!])).toEqual(viaApi.body);

    expect((await json(['partner', 'pause', partnerId!])).paused).toBe(true);
    expect((await json(['partner', 'resume', partnerId!])).paused).toBe(false);
  });

  it('when a key is issued, then it is printed once, works for ping, is listed, and stops working once revoked', async () => {
    const { partner_id } = await json(['partner', 'create', 'Key Holder']);
    const created = await cli(['key', 'create', partner_id, '--env', 'sandbox']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/shown once/);
    const key = /^\s*(svc_sk_\S+)$/m.exec(created.stdout)?.[1] ?? '';
    expect(key).toMatch(KEY);
    expect((await ping(key)).status).toBe(200);

    const keyId = key.split('_')[3];
    const keys = await json(['key', 'list', partner_id]);
    expect(keys.data).toEqual([expect.objectContaining({ key_id: keyId, env: 'sandbox', revoked_at: null })]);
    expect(JSON.stringify(keys)).not.toContain(key.split('_').pop());

    const revoked = await json(['key', 'revoke', keyId]);
    expect(revoked.revoked_at).toEqual(expect.any(String));
    expect((await ping(key)).status).toBe(401);
  });

  it('when a production key is asked for as --env live, then a live key is issued that reaches production', async () => {
    const { partner_id } = await json(['partner', 'create', 'Going Live']);
    const created = await cli(['key', 'create', partner_id, '--env', 'live']);
    expect(created.code).toBe(0);
    const key = /^\s*(svc_sk_\S+)$/m.exec(created.stdout)?.[1] ?? '';
    expect(key).toMatch(/^svc_sk_live_/);
    expect(await (await ping(key)).json()).toMatchObject({ env: 'production' });
    expect((await json(['key', 'list', partner_id])).data).toEqual([expect.objectContaining({ env: 'production' })]);
  });

  it('when the outbox is listed and a message retried from the CLI, then the message is due now, with its attempts kept', async () => {
    const { id } = await enqueueOutbound(app.deps.db, { kind: 'brand_list', payload: {} }, new Date(app.clock.now().getTime() + 3600_000));
    const listed = await cli(['outbox', 'list', '--status', 'pending']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^id\s+kind\s+for\s+status\s+attempts/);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+brand_list\\s+-\\s+pending`, 'm'));
    const retried = await json(['outbox', 'retry', id]);
    expect(retried).toMatchObject({ id, status: 'pending', attempts: 0 });
    // Due now by the service's clock (the test clock stands still), not an hour on.
    expect(retried.next_attempt_at).toBe(app.clock.now().toISOString());
    const unknown = await cli(['outbox', 'retry', '999999']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^error not_found: No outbox message 999999/);
  });

  it('when vehicle codes are set, then they are listed, and removed', async () => {
    const { partner_id } = await json(['partner', 'create', 'Vocab Partner']);
    expect((await cli(['vocab', 'set', partner_id, 'SEDAN', 'standard_car'])).code).toBe(0);
    await json(['vocab', 'set', partner_id, 'MPV5', 'suv']);
    expect(await json(['vocab', 'list', partner_id])).toEqual({
      data: [
        { partner_id, code: 'MPV5', vehicle: 'suv' },
        { partner_id, code: 'SEDAN', vehicle: 'standard_car' },
      ],
    });
    const removed = await cli(['vocab', 'remove', partner_id, 'MPV5']);
    expect(removed).toMatchObject({ code: 0, stdout: `removed MPV5 → suv for ${partner_id}\n` });
    expect((await json(['vocab', 'list', partner_id])).data.map((v: { code: string }) => v.code)).toEqual(['SEDAN']);

    const bad = await cli(['vocab', 'set', partner_id, 'TUK', 'rickshaw']);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^error invalid_request: .*\n {2}vehicle: /);
  });

  it("when a partner's terms are changed from the CLI, then a new version keeps what the options do not name; the statement and a vehicle's seats read back", async () => {
    const p = await json(['partner', 'create', 'CLI Terms']);
    const shown = await cli(['partner', 'terms', p.partner_id]);
    expect(shown.stdout).toContain('cancellation_fees: 50 % from 12 h before pickup; 100 % from 2 h before pickup');
    const v2 = await json(['partner', 'terms', p.partner_id, '--fee', '48:25', '--fee', '6:100', '--adjust', '-10']);
    expect(v2).toMatchObject({
      version: 2,
      cancellation_fees: [
        { hours_before: 48, percent: 25 },
        { hours_before: 6, percent: 100 },
      ],
      no_show_percent: 100,
      price_adjustment_percent: -10,
    });
    const v3 = await json(['partner', 'terms', p.partner_id, '--fee', 'none', '--noshow', '80']);
    expect(v3).toMatchObject({ version: 3, cancellation_fees: [], no_show_percent: 80, price_adjustment_percent: -10 });
    const bad = await cli(['partner', 'terms', p.partner_id, '--fee', '12']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--fee takes hours:percent');

    const statement = await cli(['partner', 'statement', p.partner_id, '--env', 'live', '--from', '2026-12-01', '--to', '2026-12-31']);
    expect(statement.code).toBe(0);
    expect(statement.stdout).toMatch(/bookings:\s+0/);

    const car = await json(['vehicle', 'add', 'suv', 'CAW-4587', 'Mitsubishi', 'Montero', 'white']);
    const seats = await cli(['vehicle', 'equipment', car.vehicle_id, '--child-seat', '2', '--booster-seat', '1']);
    expect(seats.stdout).toMatch(/seats:\s+2 child, 1 booster/);
    expect((await json(['vehicle', 'list', '--fleet-code', 'suv'])).data[0].equipment).toEqual({ infant_seat: 0, child_seat: 2, booster_seat: 1 });
  });

  it('when the audit log is listed, then the limit and filters reach the API', async () => {
    for (let i = 0; i < 3; i++) await json(['partner', 'list']);
    const audit = await json(['audit', 'list', '--limit', '3']);
    expect(audit.data).toHaveLength(3);
    expect(audit.data[0]).toEqual(expect.objectContaining({ surface: 'ops', method: 'GET', path: '/ops/v1/partners', status: 200 }));
    const filtered = await json(['audit', 'list', '--surface', 'ops', '--path', '/ops/v1/audit']);
    expect(filtered.data.length).toBeGreaterThan(0);
    for (const e of filtered.data) expect(e).toMatchObject({ surface: 'ops', path: expect.stringMatching(/^\/ops\/v1\/audit/) });
    const one = await json(['audit', 'list', '--request-id', audit.data[1].request_id]);
    expect(one.data.map((e: { id: string }) => e.id)).toEqual([audit.data[1].id]);
    // Direction is its own filter (not a surface): inbound matches what we answered, outbound what we sent.
    const inbound = await json(['audit', 'list', '--direction', 'inbound', '--limit', '5']);
    expect(inbound.data.length).toBe(5);
    for (const e of inbound.data) expect(e.direction).toBe('inbound');
    expect((await json(['audit', 'list', '--direction', 'outbound'])).data).toEqual([]);
    const wrong = await cli(['audit', 'list', '--surface', 'outbound']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/surface: must be one of transfers, mcp, console, ops/);
  });

  it('when an operator registers a vehicle and a driver and dispatches a job from the CLI, then the job shows them', async () => {
    const added = await json(['vehicle', 'add', 'standard_car', 'CBG-7781', 'Toyota', 'Axio', 'white']);
    expect(added).toMatchObject({ fleet_code: 'standard_car', plate: 'CBG-7781', active: true });
    const drv = await json(['driver', 'add', 'Sunil Fernando', '+94 77 123 4567', '--languages', 'si,en']);
    expect(drv.languages).toEqual(['si', 'en']);
    // A token for the driver's phone, shown once; it signs in to the driver API, and once revoked it does not.
    const phone = await json(['driver', 'token', drv.driver_id]);
    expect(phone.token).toMatch(/^drv_/);
    const me = () => fetch(`${app.url}/driver/v1/me`, { headers: { Authorization: `Bearer ${phone.token}` } });
    expect((await me()).status).toBe(200);
    expect(await json(['driver', 'revoke-token', phone.token_id])).toMatchObject({ token_id: phone.token_id, revoked_at: expect.any(String) });
    expect((await me()).status).toBe(401);
    const vehicles = await cli(['vehicle', 'list', '--fleet-code', 'standard_car']);
    expect(vehicles.stdout.split('\n')[0]).toMatch(/^vehicle_id\s+fleet_code\s+plate\s+brand\s+model\s+colour\s+seats\s+active$/);
    expect(vehicles.stdout).toContain('CBG-7781');

    const partner = await operator(app.url).partnerWithKeys('CLI Dispatch');
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${app.url}${p}`, {
        method,
        headers: { Authorization: `Bearer ${partner.liveKey}`, 'Content-Type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      }).then((r) => r.json() as Promise<any>);
    const q = await call('POST', '/transfers/v1/quotes', {
      pickup: { iata: 'CMB' },
      dropoff: { name: 'Kandy' },
      pickup_datetime: '2027-01-10T09:30:00+05:30',
      passengers: { adults: 2 },
    });
    const b = await call('POST', '/transfers/v1/bookings', {
      quote_id: q.quote_id,
      offer_id: q.offers[0].offer_id,
      partner_reference: 'CLI-1',
      passenger: { first_name: 'A', last_name: 'B' },
      passengers: { adults: 2 },
      flight_number: 'UL504',
    });
    const listed = await json(['job', 'list', '--booking', b.booking_ref]);
    expect(listed.data).toHaveLength(1);
    const jobId = listed.data[0].job_id;
    const human = await cli(['job', 'list', '--date', '2027-01-10']);
    expect(human.stdout.split('\n')[0]).toMatch(/^job_id\s+pickup_at\s+status\s+fleet_code\s+for\s+from\s+to\s+driver\s+vehicle$/);
    expect(human.stdout).toContain(b.booking_ref);

    const assigned = await cli(['job', 'assign', jobId, drv.driver_id, added.vehicle_id]);
    expect(assigned.code).toBe(0);
    expect(assigned.stdout).toMatch(/^status:\s+driver_assigned$/m);
    expect(assigned.stdout).toMatch(/^driver:\s+Sunil Fernando$/m);
    expect((await json(['job', 'show', jobId])).vehicle.plate).toBe('CBG-7781');
    expect((await call('GET', `/transfers/v1/bookings/${b.booking_ref}`)).driver).toMatchObject({ name: 'Sunil Fernando', plate: 'CBG-7781' });

    const early = await cli(['job', 'no-show', jobId, 'not there']);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('job_conflict');
  });

  it("when a driver's base is set by place name, then the CLI shows the place as located, and the driver list shows it by name", async () => {
    const drv = await json(['driver', 'add', 'Kamal Perera', '+94 77 555 0101']);
    const car = await json(['vehicle', 'add', 'standard_car', 'CBH-1200', 'Toyota', 'Prius', 'silver']);
    const set = await cli(['driver', 'set', drv.driver_id, '--base', 'Katunayake airport', '--vehicle', car.vehicle_id]);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/^base:\s+Katunayake airport → Bandaranaike International Airport \(7\.17\d{3}, 79\.88\d{3}\)$/m);
    expect(set.stdout).toMatch(new RegExp(`^usual_vehicle:\\s+${car.vehicle_id}$`, 'm'));
    const list = await cli(['driver', 'list']);
    expect(list.stdout.split('\n')[0]).toMatch(/^driver_id\s+name\s+phone\s+languages\s+base\s+active$/);
    expect(list.stdout).toMatch(new RegExp(`^${drv.driver_id}\\s+Kamal Perera\\s+.*\\s+Katunayake airport\\s+true$`, 'm'));

    // By coordinates (with a name, it labels the point); the vehicle stays as it was.
    const point = await cli(['driver', 'set', drv.driver_id, '--lat', '7.2906', '--lon', '80.6337']);
    expect(point.stdout).toMatch(/^base:\s+7\.29060, 80\.63370$/m);
    expect(point.stdout).toMatch(new RegExp(`^usual_vehicle:\\s+${car.vehicle_id}$`, 'm'));
    const home = await json(['driver', 'set', drv.driver_id, '--base', 'Home', '--lat', '7.2906', '--lon', '80.6337']);
    expect(home.base).toEqual({ name: 'Home', resolved_name: expect.any(String), lat: 7.2906, lon: 80.6337 });
    const cleared = await cli(['driver', 'set', drv.driver_id, '--clear-base', '--clear-vehicle']);
    expect(cleared.stdout).toMatch(/^base:\s+-$/m);
    expect(cleared.stdout).toMatch(/^usual_vehicle:\s+-$/m);

    // A place we cannot locate, an unknown vehicle: the API's words; a half or empty request: refused here.
    const nowhere = await cli(['driver', 'set', drv.driver_id, '--base', 'Atlantis']);
    expect(nowhere).toMatchObject({ code: 1, stdout: '' });
    expect(nowhere.stderr).toMatch(/^error invalid_request: The base could not be located .*\n {2}base: No Sri Lankan place found in "Atlantis"/);
    const noCar = await cli(['driver', 'set', drv.driver_id, '--vehicle', 'veh_nope']);
    expect(noCar).toMatchObject({ code: 1, stdout: '' });
    expect(noCar.stderr).toMatch(/^error not_found: No vehicle veh_nope\./);
    for (const [args, message] of [
      [[], 'give what to set'],
      [['--lat', '7.29'], 'give both --lat and --lon'],
      [['--base', 'Kandy', '--clear-base'], 'not both'],
      [['--lat', 'north', '--lon', '80'], '--lat must be a number, not "north"'],
    ] as const) {
      const r = await cli(['driver', 'set', drv.driver_id, ...args]);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toContain(message);
    }
    expect((await json(['driver', 'list'])).data.find((d: { driver_id: string }) => d.driver_id === drv.driver_id)).toMatchObject({
      base: null,
      usual_vehicle_id: null,
    });
  });

  describe("a driver's shifts", () => {
    const WEEK = ['--weekly', 'mon-fri 06:00-18:00', '--weekly', 'sat 20:00-06:00', '--off', '2026-12-25', '--exception', '2026-12-26 10:00-16:00'];

    it('when shifts are set in the compact form, then reading them back prints them by weekday, with the exceptions', async () => {
      const drv = await json(['driver', 'add', 'Nuwan Silva', '+94 77 555 0102']);
      expect((await cli(['driver', 'shifts', drv.driver_id])).stdout).toContain('No hours set: the driver is not held to any.');
      const set = await cli(['driver', 'shifts', drv.driver_id, ...WEEK]);
      expect(set).toMatchObject({ code: 0, stderr: '' });

      const shown = await cli(['driver', 'shifts', drv.driver_id]);
      expect(shown).toMatchObject({ code: 0, stderr: '' });
      const weekly = shown.stdout.slice(shown.stdout.indexOf('Weekly'), shown.stdout.indexOf('Exceptions'));
      expect(weekly.split('\n').filter(Boolean)).toEqual([
        'Weekly (Sri Lanka time):',
        'weekday    hours',
        ...['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'].map((day) => `${day.padEnd(9)}  06:00-18:00`),
        'Saturday   20:00-06:00 (next day)',
      ]);
      expect(shown.stdout).toMatch(/^2026-12-25\s+Friday\s+off$/m);
      expect(shown.stdout).toMatch(/^2026-12-26\s+Saturday\s+10:00-16:00$/m);
      expect(shown.stdout).toMatch(/^updated_at:\s+2026-11-21T08:00:00\.000Z$/m);
      // As the API has them.
      expect(await json(['driver', 'shifts', drv.driver_id])).toEqual((await operator(app.url).call('GET', `/drivers/${drv.driver_id}/shifts`)).body);
      expect((await json(['driver', 'shifts', drv.driver_id])).weekly).toHaveLength(6);

      // What the options do not name stays: new exceptions keep the weekly hours.
      const newYear = await json(['driver', 'shifts', drv.driver_id, '--off', '2027-01-01']);
      expect(newYear.weekly).toHaveLength(6);
      expect(newYear.exceptions).toEqual([{ date: '2027-01-01', off: true }]);
      // A split day, a wrapping range, and a file with the API's body (replacing everything).
      const split = await json(['driver', 'shifts', drv.driver_id, '--weekly', 'sat-mon 6:00-10:00 14:00-24:00', '--exception', 'none']);
      expect(split).toMatchObject({ exceptions: [] });
      expect(split.weekly).toEqual(
        [1, 1, 6, 6, 7, 7].map((weekday, i) => ({ weekday, ...(i % 2 ? { starts: '14:00', ends: '00:00' } : { starts: '06:00', ends: '10:00' }) })),
      );
      const file = path.join(tmp, 'shifts.json');
      fs.writeFileSync(file, JSON.stringify({ weekly: [{ weekday: 7, starts: '08:00', ends: '12:00' }] }));
      const fromFile = await cli(['driver', 'shifts', drv.driver_id, '--file', file]);
      expect(fromFile).toMatchObject({ code: 0, stderr: '' });
      expect(fromFile.stdout).toMatch(/^Sunday\s+08:00-12:00\n\nExceptions:\n\(none\)\n$/m);
    });

    it('when shifts overlap, then the API refuses them with its reasons, printed, and the hours stay as they were', async () => {
      const drv = await json(['driver', 'add', 'Ruwan Jayasinghe', '+94 77 555 0103']);
      const before = await json(['driver', 'shifts', drv.driver_id, ...WEEK]);
      const overlap = await cli([
        'driver',
        'shifts',
        drv.driver_id,
        '--weekly',
        'mon-fri 06:00-18:00',
        '--weekly',
        'fri 17:00-23:00',
        '--weekly',
        'sun 05:00-05:00',
      ]);
      expect(overlap).toMatchObject({ code: 1, stdout: '' });
      expect(overlap.stderr).toMatch(/^error invalid_request: The hours are not valid: /);
      expect(overlap.stderr).toContain('\n  shifts: 05:00–05:00 has no length: give different start and end times.\n');
      expect(overlap.stderr).toContain('\n  shifts: weekly shifts overlap: weekday 5 06:00–18:00 and weekday 5 17:00–23:00.\n');
      // Across midnight: Saturday night runs into Sunday morning; two exceptions of one day.
      const night = await cli(['driver', 'shifts', drv.driver_id, '--weekly', 'sat 20:00-06:00', '--weekly', 'sun 05:00-09:00']);
      expect(night.stderr).toContain('  shifts: weekly shifts overlap: weekday 6 20:00–06:00 and weekday 7 05:00–09:00.');
      const day = await cli(['driver', 'shifts', drv.driver_id, '--exception', '2026-12-26 10:00-16:00 15:00-17:00']);
      expect(day.stderr).toContain('  shifts: shifts on 2026-12-26 overlap.');
      expect(await json(['driver', 'shifts', drv.driver_id])).toEqual(before);
      const unknown = await cli(['driver', 'shifts', 'drv_nope', ...WEEK]);
      expect(unknown).toMatchObject({ code: 1, stdout: '' });
      expect(unknown.stderr).toMatch(/^error not_found: No driver drv_nope\./);
    });

    it('when the compact form is malformed, then the CLI refuses it itself, saying what it takes, and nothing changes', async () => {
      const drv = await json(['driver', 'add', 'Dilan Fonseka', '+94 77 555 0104']);
      const before = await json(['driver', 'shifts', drv.driver_id, ...WEEK]);
      const cases: Array<[string[], string]> = [
        [
          ['--weekly', 'funday 06:00-18:00'],
          '--weekly takes "<days> HH:MM-HH:MM" (e.g. "mon-fri 06:00-18:00", "sat 20:00-06:00"), not "funday 06:00-18:00": "funday" is not a day',
        ],
        [['--weekly', 'mon-fri 6-18'], 'not "mon-fri 6-18": "6" is not a time (00:00 to 23:59)'],
        [['--weekly', 'mon-fri'], 'not "mon-fri": no hours (HH:MM-HH:MM)'],
        [['--weekly', '06:00-18:00'], 'not "06:00-18:00": no days'],
        [['--weekly', 'mon 08:00-25:00'], '"25:00" is not a time (00:00 to 24:00)'],
        [['--off', '2026-02-30'], '--off takes YYYY-MM-DD (e.g. 2026-12-25), not "2026-02-30"'],
        [['--exception', '2026-12-26'], '--exception takes "YYYY-MM-DD HH:MM-HH:MM" (e.g. "2026-12-26 10:00-16:00"), not "2026-12-26": no hours'],
        [['--weekly', 'none', '--weekly', 'mon 06:00-07:00'], '--weekly none stands alone'],
        [['--file', 'shifts.json', '--off', '2026-12-25'], 'give --file, or --weekly, --off and --exception, not both'],
        [['--file', path.join(tmp, 'missing.json')], 'cannot read --file'],
      ];
      for (const [args, message] of cases) {
        // Pointed at a service that cannot be reached: a refusal of the CLI's own is exit 1, not 2.
        const r = await cli(['driver', 'shifts', drv.driver_id, ...args], { OPERATOR_TOKEN }, 'http://127.0.0.1:9');
        expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
        expect(r.stderr).toMatch(/^error: /);
        expect(r.stderr).toContain(message);
      }
      expect(await json(['driver', 'shifts', drv.driver_id])).toEqual(before);
      const help = await cli(['driver', 'shifts', '--help']);
      expect(help.stdout).toContain('--weekly <days hours>');
      expect(help.stdout).toContain('--weekly "mon-fri 06:00-18:00" --weekly "sat 20:00-06:00"');
    });
  });

  it("when pinged, then it shows the service's time and today in Sri Lanka; with OPS_LISTEN set it asks there by default", async () => {
    const r = await cli(['ping']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    // The test app's clock: 2026-11-21T08:00Z is 13:30 in Sri Lanka, the same day.
    expect(r.stdout).toMatch(/^ok:\s+true$/m);
    expect(r.stdout).toMatch(/^time:\s+2026-11-21T08:00:00.000Z$/m);
    expect(r.stdout).toMatch(/^today:\s+2026-11-21$/m);
    const viaOpsListen = await cli(['ping', '--json'], { OPERATOR_TOKEN, OPS_LISTEN: `0.0.0.0:${app.port}`, PUBLIC_BASE_URL: 'http://127.0.0.1:9' }, null);
    expect(viaOpsListen).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(viaOpsListen.stdout)).toEqual({ ok: true, time: '2026-11-21T08:00:00.000Z', today: '2026-11-21' });
  });

  it('when no --base-url is given, then it asks PUBLIC_BASE_URL, else 127.0.0.1 at PORT (3000 by default); --base-url comes first', async () => {
    const pong = { code: 0, stderr: '' };
    expect(await cli(['ping', '--json'], { OPERATOR_TOKEN, PORT: String(app.port) }, null)).toMatchObject(pong);
    expect(await cli(['ping', '--json'], { OPERATOR_TOKEN, PUBLIC_BASE_URL: app.url, PORT: '9' }, null)).toMatchObject(pong);
    expect(await cli(['ping', '--json'], { OPERATOR_TOKEN, PUBLIC_BASE_URL: 'http://127.0.0.1:9' })).toMatchObject(pong);
    // Port 9 is one fetch refuses to dial: the messages show where it looked.
    const byPort = await cli(['ping'], { OPERATOR_TOKEN, PORT: '9' }, null);
    expect(byPort).toMatchObject({ code: 2, stdout: '' });
    expect(byPort.stderr).toContain('cannot reach the operator API at http://127.0.0.1:9 ');
    const help = await cli(['--help'], { OPERATOR_TOKEN, PORT: '8080' }, null);
    expect(help.stdout).toContain('(default: "http://127.0.0.1:8080")');
    // DATA_DIR: a folder where no npm start wrote where it listens (the working directory's ./data might have).
    const nowhere = fs.mkdtempSync(path.join(tmp, 'nowhere-'));
    expect((await cli(['--help'], { OPERATOR_TOKEN, DATA_DIR: nowhere }, null)).stdout).toContain('(default: "http://127.0.0.1:3000")');
  });

  it('when PORT is not set in its shell, then it asks the service npm start said it listens on (DATA_DIR/listening.json), not one that is gone; when nothing answers, one line names the address, where it came from, and --base-url and PORT=', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'listening-'));
    const env = { OPERATOR_TOKEN, DATA_DIR: dir };
    // Before npm start wrote anything: port 3000, and said so.
    expect((await cli(['--help'], env, null)).stdout).toContain('(default: "http://127.0.0.1:3000")');

    const forget = writeListening(dir, { url: app.url, opsUrl: app.opsUrl });
    const found = await cli(['ping', '--json'], env, null);
    expect(found).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(found.stdout)).toMatchObject({ ok: true });
    expect((await cli(['--help'], env, null)).stdout).toContain(`(default: "${app.opsUrl}")`);
    // PORT in the CLI's own environment, and --base-url, still come first.
    expect(await cli(['ping'], { ...env, PORT: '9' }, null)).toMatchObject({ code: 2 });
    forget();
    expect(fs.existsSync(listeningFile(dir))).toBe(false);

    // A file left behind by a service that is gone (kill -9) is not believed.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeListening(dir, { url: app.url, opsUrl: app.opsUrl }, gone);
    expect((await cli(['--help'], env, null)).stdout).toContain('(default: "http://127.0.0.1:3000")');
    // A second service started on the same DATA_DIR keeps its file when the first one stops.
    const first = writeListening(dir, { url: `http://127.0.0.1:${await freePort()}`, opsUrl: `http://127.0.0.1:${await freePort()}` }, gone);
    const second = writeListening(dir, { url: app.url, opsUrl: app.opsUrl });
    first();
    expect((await cli(['ping'], env, null)).code).toBe(0);
    second();
    expect(fs.existsSync(listeningFile(dir))).toBe(false);

    // Nothing answers where the file says (the service stopping, say): one line, naming all of it.
    const closed = await freePort();
    writeListening(dir, { url: `http://127.0.0.1:${closed}`, opsUrl: `http://127.0.0.1:${closed}` });
    const refused = await cli(['partner', 'list'], env, null);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr.trimEnd().split('\n')).toEqual([
      `cannot reach the operator API at http://127.0.0.1:${closed} (ECONNREFUSED), where npm start said it listens (${listeningFile(dir)}): ` +
        'is the service running? Point the CLI at it with --base-url http://<host>:<port>, or PORT=<port> on this machine.',
    ]);
    const byPort = await cli(['partner', 'list'], { OPERATOR_TOKEN, PORT: String(closed) }, null);
    expect(byPort.stderr).toContain(`at http://127.0.0.1:${closed} (ECONNREFUSED), from PORT=${closed}: `);
  });

  it('when the token is wrong, then exit 1 with the API error on stderr and nothing on stdout', async () => {
    const r = await cli(['partner', 'list', '--json', '--token', 'op_wrong_token_000000000']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^error unauthorized: /);
  });

  it('when the input is invalid, then exit 1 naming the field, and nothing is created', async () => {
    const r = await cli(['partner', 'create', 'Pound Tours', '--currency', 'GBP']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^error invalid_request: .*\n {2}currency: /);
    expect(await app.db('partners').where({ name: 'Pound Tours' })).toHaveLength(0);
    const missing = await cli(['partner', 'show', 'ptn_nope']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^error not_found: /);
  });

  it('when the service is unreachable or no token is known, then exit 2 with a message saying so', async () => {
    // Port 9 is one fetch refuses to dial; a port just freed is a real ECONNREFUSED.
    const blocked = await cli(['partner', 'list'], { OPERATOR_TOKEN }, 'http://127.0.0.1:9');
    expect(blocked).toMatchObject({ code: 2, stdout: '' });
    expect(blocked.stderr).toContain('cannot reach the operator API at http://127.0.0.1:9');
    const closed = await freePort();
    const refused = await cli(['partner', 'list', '--json'], { OPERATOR_TOKEN }, `http://127.0.0.1:${closed}`);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain(`cannot reach the operator API at http://127.0.0.1:${closed} (ECONNREFUSED), from --base-url: `);

    const empty = fs.mkdtempSync(path.join(tmp, 'empty-'));
    const noToken = await cli(['partner', 'list'], { DATA_DIR: empty });
    expect(noToken).toMatchObject({ code: 2, stdout: '' });
    expect(noToken.stderr).toContain(`no operator token`);
    expect(noToken.stderr).toContain(path.join(empty, 'operator-token'));
  });

  it('when only the data dir and OPERATOR_BASE_URL are given, then the token is read from the data dir', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'data-'));
    fs.writeFileSync(path.join(dir, 'operator-token'), `${OPERATOR_TOKEN}\n`);
    const r = await cli(['partner', 'list', '--json'], { DATA_DIR: dir, OPERATOR_BASE_URL: `${app.url}/` }, null);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual((await operator(app.url).call('GET', '/partners')).body);
  });

  it("when an operator looks after a partner's webhook endpoint, then the CLI lists it, disables and enables it, and lists its deliveries", async () => {
    const p = await operator(app.url).partnerWithKeys('Webhook CLI Partner');
    const created = await fetch(`${app.url}/transfers/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${p.liveKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'https://93.184.215.14/hooks' }),
    });
    const endpointId = ((await created.json()) as { id: string }).id;
    const listed = await cli(['webhook', 'list', '--partner', p.partner_id]);
    expect(listed.stdout.split('\n')[0]).toMatch(/^endpoint_id\s+partner_id\s+env\s+status\s+url\s+failing_since\s+disabled_reason$/);
    expect(listed.stdout).toMatch(new RegExp(`^${endpointId}\\s+${p.partner_id}\\s+production\\s+enabled\\s+https://93.184.215.14/hooks`, 'm'));

    const off = await json(['webhook', 'disable', endpointId, '--reason', 'partner migrating servers']);
    expect(off).toMatchObject({ endpoint_id: endpointId, status: 'disabled', disabled_reason: 'disabled by an operator: partner migrating servers' });
    expect((await json(['webhook', 'list', '--status', 'disabled', '--env', 'production'])).data.map((e: { endpoint_id: string }) => e.endpoint_id)).toContain(
      endpointId,
    );
    expect(await json(['webhook', 'enable', endpointId])).toMatchObject({ status: 'enabled', disabled_reason: null });

    // A ping owes the endpoint a delivery, listed with what it is for.
    await fetch(`${app.url}/transfers/v1/webhook_endpoints/${endpointId}/test`, { method: 'POST', headers: { Authorization: `Bearer ${p.liveKey}` } });
    const deliveries = await json(['outbox', 'list', '--kind', 'webhook', '--endpoint', endpointId]);
    expect(deliveries.data).toEqual([
      expect.objectContaining({
        kind: 'webhook',
        webhook: expect.objectContaining({ endpoint_id: endpointId, partner_id: p.partner_id, env: 'production', event_type: 'ping' }),
      }),
    ]);
    const table = await cli(['outbox', 'list', '--partner', p.partner_id]);
    expect(table.stdout).toMatch(new RegExp(`^\\d+\\s+webhook\\s+${endpointId} ping evt_[0-9a-f]{24}\\s+`, 'm'));
    expect((await cli(['webhook', 'disable', 'we_0000000000'])).stderr).toMatch(/^error not_found: No webhook endpoint we_0000000000\./);
  });

  it('when an operator account is created, then its token is printed once with a warning, works with its role, is never listed, and is refused once revoked', async () => {
    const created = await cli(['account', 'create', '--name', 'Nimali Perera', '--role', 'dispatcher']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const operatorId = /^operator_id:\s+(opr_[a-z0-9]+)$/m.exec(created.stdout)?.[1];
    expect(operatorId).toBeDefined();
    expect(created.stdout).toMatch(/^name:\s+Nimali Perera$/m);
    expect(created.stdout).toMatch(/^role:\s+dispatcher$/m);
    expect(created.stdout).toMatch(/^created_by:\s+bootstrap$/m);
    expect(created.stdout).toMatch(/Store this token now: it is shown once and cannot be retrieved again/);
    const token = /^\s+(op_\S+)$/m.exec(created.stdout)?.[1] ?? '';
    expect(token).toMatch(/^op_[A-Za-z0-9]{40}$/);
    // The token is the dispatcher's: its own CLI runs as Nimali Perera, and an admin's command is refused in the API's words.
    expect(await json(['ping', '--token', token])).toMatchObject({ ok: true });
    const asDispatcher = await cli(['account', 'create', '--name', 'Someone', '--role', 'admin', '--token', token]);
    expect(asDispatcher).toMatchObject({ code: 1, stdout: '' });
    expect(asDispatcher.stderr).toBe(`error forbidden: This needs the admin role; operator ${operatorId} is a dispatcher.\n`);

    // Listed, without the token; the human view is a table.
    const listed = await json(['account', 'list']);
    expect(listed.data).toContainEqual({
      operator_id: operatorId,
      name: 'Nimali Perera',
      role: 'dispatcher',
      created_at: expect.any(String),
      created_by: 'bootstrap',
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(token.slice(3));
    const human = await cli(['account', 'list']);
    expect(human.stdout.split('\n')[0]).toMatch(/^operator_id\s+name\s+role\s+created_at\s+created_by\s+revoked_at$/);
    expect(human.stdout).toMatch(new RegExp(`^${operatorId}\\s+Nimali Perera\\s+dispatcher\\s+\\S+\\s+bootstrap\\s+-$`, 'm'));
    // With --json, the token is in the document (for scripts), still only this once.
    const scripted = await json(['account', 'create', '--name', 'Ravi Jayasuriya', '--role', 'viewer']);
    expect(scripted).toMatchObject({ name: 'Ravi Jayasuriya', role: 'viewer', token: expect.stringMatching(/^op_/) });

    const revoked = await json(['account', 'revoke', operatorId!]);
    expect(revoked).toMatchObject({ operator_id: operatorId, revoked_at: expect.any(String) });
    expect(revoked).not.toHaveProperty('token');
    const refused = await cli(['ping', '--token', token]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^error unauthorized: /);
    const unknown = await cli(['account', 'revoke', 'opr_nobody0000']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^error not_found: No operator opr_nobody0000\./);
  });

  it('when an account is asked for with a wrong role or without a name, then nothing is created', async () => {
    const before = (await json(['account', 'list'])).data.length;
    const badRole = await cli(['account', 'create', '--name', 'Root', '--role', 'superuser']);
    expect(badRole).toMatchObject({ code: 1, stdout: '' });
    expect(badRole.stderr).toMatch(/^error invalid_request: .*\n {2}role: must be one of admin, dispatcher, viewer/);
    const noName = await cli(['account', 'create', '--role', 'viewer']);
    expect(noName.code).toBe(1);
    expect(noName.stderr).toContain("required option '--name <name>'");
    expect((await json(['account', 'list'])).data).toHaveLength(before);
  });

  it("when a partner's rate limit is set or removed from the CLI, then the API stores it per environment", async () => {
    const { partner_id } = await json(['partner', 'create', 'Rate Limited Tours']);
    const set = await cli(['partner', 'rate-limit', partner_id, '--env', 'production', '--rps', '20', '--burst', '40']);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/^sandbox:\s+none$/m);
    expect(set.stdout).toMatch(/^production:\s+20 requests\/s, burst 40$/m);
    // Without --burst, the API's default: twice the rate (at least 1); `test` is sandbox, as for keys.
    const half = await json(['partner', 'rate-limit', partner_id, '--env', 'test', '--rps', '0.5']);
    expect(half.rate_limits).toEqual({ sandbox: { requests_per_second: 0.5, burst: 1 }, production: { requests_per_second: 20, burst: 40 } });
    expect((await operator(app.url).call('GET', `/partners/${partner_id}`)).body.rate_limits).toEqual(half.rate_limits);

    const removed = await json(['partner', 'rate-limit', partner_id, '--env', 'sandbox', '--none']);
    expect(removed.rate_limits).toEqual({ sandbox: null, production: { requests_per_second: 20, burst: 40 } });

    // Neither or both of --rps and --none, or a word for a number: refused before asking the API; nothing changes.
    for (const args of [[], ['--rps', '5', '--none'], ['--none', '--burst', '3'], ['--rps', 'fast'], ['--rps', '5', '--burst', 'lots']]) {
      const r = await cli(['partner', 'rate-limit', partner_id, '--env', 'production', ...args]);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toMatch(/^error: (give --rps <n> \(and --burst <n> if wanted\), or --none|--(rps|burst) must be a number, not "\w+")\n/);
    }
    const tooSlow = await cli(['partner', 'rate-limit', partner_id, '--env', 'production', '--rps', '0']);
    expect(tooSlow).toMatchObject({ code: 1, stdout: '' });
    expect(tooSlow.stderr).toMatch(/^error invalid_request: .*\n {2}requests_per_second: /);
    expect((await operator(app.url).call('GET', `/partners/${partner_id}`)).body.rate_limits).toEqual(removed.rate_limits);
    const unknown = await cli(['partner', 'rate-limit', 'ptn_nope', '--env', 'sandbox', '--none']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^error not_found: /);
  });

  it("when a partner's AI agent policy is shown or changed from the CLI, then options not given stay as they were", async () => {
    const { partner_id } = await json(['partner', 'create', 'Agent Tours']);
    const shown = await cli(['partner', 'agents', partner_id]);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toMatch(/^agents:\s+on$/m);
    expect(shown.stdout).toMatch(/^production_bookings:\s+off$/m);
    expect(shown.stdout).toMatch(/^updated:\s+never \(the defaults\)$/m);
    const live = await json(['partner', 'agents', partner_id, '--live', 'yes', '--max-daily', '500']);
    expect(live).toMatchObject({ enabled: true, live_bookings: true, max_booking_amount: null, max_daily_amount: 500, currency: 'USD' });
    const capped = await json(['partner', 'agents', partner_id, '--max-booking', '120.5']);
    expect(capped).toMatchObject({ live_bookings: true, max_booking_amount: 120.5, max_daily_amount: 500 });
    const lifted = await json(['partner', 'agents', partner_id, '--max-daily', 'none', '--enabled', 'no']);
    expect(lifted).toMatchObject({ enabled: false, live_bookings: true, max_booking_amount: 120.5, max_daily_amount: null });
    expect((await operator(app.url).call('GET', `/partners/${partner_id}/agent-policy`)).body).toMatchObject({ enabled: false, max_booking_amount: 120.5 });
    for (const args of [
      ['--live', 'maybe'],
      ['--max-daily', 'lots'],
    ]) {
      const r = await cli(['partner', 'agents', partner_id, ...args]);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toMatch(/^error: --(live takes yes or no|max-daily takes an amount or none), not "\w+"\n/);
    }
    const negative = await cli(['partner', 'agents', partner_id, '--max-booking', '-3']);
    expect(negative).toMatchObject({ code: 1, stdout: '' });
    expect(negative.stderr).toMatch(/^error invalid_request: .*\n {2}max_booking_amount: /);
  });

  it('when asked for help or given an unknown command, then commander answers (exit 0 / 1)', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/account[\s\S]*partner[\s\S]*key[\s\S]*vocab[\s\S]*audit/);
    const unknown = await cli(['partner', 'frobnicate']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    const noEnv = await cli(['key', 'create', 'ptn_x']);
    expect(noEnv.code).toBe(1);
    expect(noEnv.stderr).toContain("required option '--env <sandbox|production|test|live>'");
  });
});
