import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFlightSimulator, FlightSimError } from '../../../simulators/flights/app';

// The flight simulator over HTTP, as a person or a test driving it would use it: its controls, its clock, its key.

const KEY = 'sim-test-key-0123456789';
const json = (res: Response): Promise<any> => res.json();
const S = '2026-12-01T09:25:00+05:30';

describe('Flight simulator', () => {
  let clock = new Date('2026-12-01T00:00:00Z');
  const sim = createFlightSimulator({ key: KEY, now: () => clock });
  let server: http.Server;
  let base: string;
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const lookup = (number: string, query = 'date=2026-12-01&arrival=CMB', key: string | null = KEY) =>
    fetch(`${base}/flights/${encodeURIComponent(number)}?${query}`, { headers: key === null ? {} : { Authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    server = http.createServer(sim.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  beforeEach(() => {
    sim.reset();
    clock = new Date('2026-12-01T00:00:00Z');
  });

  it('when a delay is scripted over POST /_scenarios, then lookups answer delayed, then landed once the clock reaches the new time', async () => {
    const created = await control('POST', '/_scenarios', {
      flight_number: 'UL504',
      date: '2026-12-01',
      scheduled_arrival: S,
      scenario: 'delayed',
      minutes: 40,
    });
    expect(created.status).toBe(201);
    const before = await lookup('UL504');
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual({
      flight_number: 'UL504',
      date: '2026-12-01',
      arrival_airport: 'CMB',
      status: 'delayed',
      scheduled_arrival: '2026-12-01T03:55:00.000Z',
      estimated_arrival: '2026-12-01T04:35:00.000Z',
      actual_arrival: null,
    });
    clock = new Date('2026-12-01T04:34:59Z');
    expect(await (await lookup('UL504')).json()).toMatchObject({ status: 'delayed', actual_arrival: null });
    clock = new Date('2026-12-01T04:35:00Z');
    expect(await (await lookup('UL504')).json()).toMatchObject({ status: 'landed', actual_arrival: '2026-12-01T04:35:00.000Z' });
  });

  it('when the flight number is written with a space or in lower case, then it is the same flight', async () => {
    sim.script({ flight_number: 'UL504', date: '2026-12-01', scheduled_arrival: S, scenario: 'on_time' });
    expect((await lookup('ul 504')).status).toBe(200);
  });

  it('when a key is configured, then a lookup without it or with another is refused 401, and the controls need none', async () => {
    expect((await control('POST', '/_scenarios', { flight_number: 'UL504', date: '2026-12-01', scheduled_arrival: S, scenario: 'on_time' })).status).toBe(201);
    const none = await lookup('UL504', undefined, null);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await lookup('UL504', undefined, 'another-key')).status).toBe(401);
    expect((await lookup('UL504')).status).toBe(200);
  });

  it('when no key is configured, then lookups need none', async () => {
    const open = createFlightSimulator({ now: () => clock });
    open.script({ flight_number: 'UL504', date: '2026-12-01', scheduled_arrival: S, scenario: 'cancelled' });
    const s = http.createServer(open.app);
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/flights/UL504?date=2026-12-01&arrival=CMB`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'cancelled', estimated_arrival: null });
    } finally {
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    }
  });

  it('when a lookup misses its date or arrival, then it is answered 400', async () => {
    expect((await lookup('UL504', 'arrival=CMB')).status).toBe(400);
    expect((await lookup('UL504', 'date=1.12.2026&arrival=CMB')).status).toBe(400);
    expect((await lookup('UL504', 'date=2026-12-01')).status).toBe(400);
  });

  it('when lookups arrive, then GET /_requests lists each with its number, date and the simulator time, and DELETE /_scenarios forgets them and the scripts', async () => {
    sim.script({ flight_number: 'UL504', date: '2026-12-01', scheduled_arrival: S, scenario: 'failing' });
    expect((await lookup('UL504')).status).toBe(503);
    clock = new Date('2026-12-01T01:00:00Z');
    expect((await lookup('UL504')).status).toBe(503);
    expect((await lookup('UL999')).status).toBe(404);
    const { requests } = await json(await control('GET', '/_requests'));
    expect(requests).toEqual([
      { number: 'UL504', date: '2026-12-01', arrival: 'CMB', at: '2026-12-01T00:00:00.000Z', status: 503 },
      { number: 'UL504', date: '2026-12-01', arrival: 'CMB', at: '2026-12-01T01:00:00.000Z', status: 503 },
      { number: 'UL999', date: '2026-12-01', arrival: 'CMB', at: '2026-12-01T01:00:00.000Z', status: 404 },
    ]);
    expect((await control('DELETE', '/_scenarios')).status).toBe(200);
    expect((await json(await control('GET', '/_requests'))).requests).toEqual([]);
    expect((await control('GET', '/_scenarios')).status).toBe(200);
    expect((await lookup('UL504')).status).toBe(404);
  });

  it.each([
    ['an unknown scenario', { scenario: 'late' }],
    ['a delay without minutes', { scenario: 'delayed' }],
    ['minutes of zero', { scenario: 'landed_early', minutes: 0 }],
    ['minutes on a cancellation', { scenario: 'cancelled', minutes: 10 }],
    ['a scheduled arrival without an offset', { scenario: 'on_time', scheduled_arrival: '2026-12-01T09:25:00' }],
    ['a date that does not exist', { scenario: 'on_time', date: '2026-02-30' }],
    ['an unknown field', { scenario: 'on_time', gate: 'B4' }],
  ])('when a script has %s, then POST /_scenarios refuses it with 400 and script() throws', async (_what, patch) => {
    const body = { flight_number: 'UL504', date: '2026-12-01', scheduled_arrival: S, ...patch };
    const res = await control('POST', '/_scenarios', body);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toEqual(expect.any(String));
    expect(() => sim.script(body as never)).toThrow(FlightSimError);
    expect((await control('GET', '/_scenarios').then(json)).flights).toEqual([]);
  });

  it('when the control body is not JSON, then it is answered 400', async () => {
    const res = await fetch(`${base}/_scenarios`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{flight' });
    expect(res.status).toBe(400);
  });
});
