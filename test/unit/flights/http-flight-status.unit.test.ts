import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpFlightStatus } from '../../../src/adapters/flights/http-flight-status';
import { FlightStatusUnavailable, type FlightQuery } from '../../../src/domain/flights/flight-status';
import { createFlightSimulator } from '../../../simulators/flights/app';

// The adapter over real HTTP on 127.0.0.1: against the flight simulator, and against a bare server for what the
// simulator does not do (stall, garbage, odd but valid bodies). No interceptors.

const KEY = 'fs_live_9Yq2sZk4-secret-bearer-key';
const DATE = '2026-12-01';
const S = '2026-12-01T09:25:00+05:30'; // 03:55 UTC
const at = (iso: string) => new Date(iso);
const plus = (iso: string, minutes: number) => new Date(new Date(iso).getTime() + minutes * 60_000);
const UL504: FlightQuery = { number: 'UL504', date: DATE, airport: 'CMB' };

interface Served {
  url: string;
  close(): Promise<void>;
}

async function serve(handler: http.RequestListener): Promise<Served> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The rejection of `p`, which must reject. */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the lookup to fail, and it answered');
}

describe('HTTP flight status, against the flight simulator', () => {
  let clock = at('2026-12-01T00:00:00Z');
  const sim = createFlightSimulator({ key: KEY, now: () => clock });
  let served: Served;
  const flights = () => createHttpFlightStatus({ url: served.url, key: KEY });

  beforeAll(async () => {
    served = await serve(sim.app);
  });
  afterAll(() => served.close());
  beforeEach(() => {
    sim.reset();
    clock = at('2026-12-01T00:00:00Z');
  });

  it('when a flight is on time, then it is scheduled at its time until then, and landed at that time after', async () => {
    sim.script({ flight_number: 'UL504', date: DATE, scheduled_arrival: S, scenario: 'on_time' });
    expect(await flights().lookup(UL504)).toEqual({ number: 'UL504', status: 'scheduled', scheduledArrival: at(S), estimatedArrival: at(S) });
    clock = plus(S, 1);
    expect(await flights().lookup(UL504)).toEqual({ number: 'UL504', status: 'landed', scheduledArrival: at(S), estimatedArrival: at(S) });
  });

  it('when a flight is delayed 40 minutes, then it is delayed to S+40 until then, and landed at S+40 after', async () => {
    sim.script({ flight_number: 'UL504', date: DATE, scheduled_arrival: S, scenario: 'delayed', minutes: 40 });
    clock = plus(S, 10); // past the scheduled time, not yet in
    expect(await flights().lookup(UL504)).toEqual({ number: 'UL504', status: 'delayed', scheduledArrival: at(S), estimatedArrival: plus(S, 40) });
    clock = plus(S, 40);
    expect(await flights().lookup(UL504)).toEqual({ number: 'UL504', status: 'landed', scheduledArrival: at(S), estimatedArrival: plus(S, 40) });
  });

  it('when a flight lands 25 minutes early, then it is expected at S−25 and landed from then, before its scheduled time', async () => {
    sim.script({ flight_number: 'UL504', date: DATE, scheduled_arrival: S, scenario: 'landed_early', minutes: 25 });
    clock = plus(S, -30);
    expect(await flights().lookup(UL504)).toEqual({ number: 'UL504', status: 'scheduled', scheduledArrival: at(S), estimatedArrival: plus(S, -25) });
    clock = plus(S, -20);
    expect(await flights().lookup(UL504)).toEqual({ number: 'UL504', status: 'landed', scheduledArrival: at(S), estimatedArrival: plus(S, -25) });
  });

  it.each(['diverted', 'cancelled'] as const)('when a flight is %s, then that is its status (the time falls back to the scheduled one)', async (scenario) => {
    sim.script({ flight_number: 'UL504', date: DATE, scheduled_arrival: S, scenario });
    // The provider sends no estimate; the report's time is actual ?? estimated ?? scheduled, so it is S.
    expect(await flights().lookup(UL504)).toEqual({ number: 'UL504', status: scenario, scheduledArrival: at(S), estimatedArrival: at(S) });
  });

  it('when the provider does not know the flight (404), then the lookup answers null', async () => {
    sim.script({ flight_number: 'UL504', date: DATE, scheduled_arrival: S, scenario: 'on_time' });
    await expect(flights().lookup({ ...UL504, number: 'UL505' })).resolves.toBeNull();
    await expect(flights().lookup({ ...UL504, date: '2026-12-02' })).resolves.toBeNull();
    await expect(flights().lookup({ ...UL504, airport: 'HRI' })).resolves.toBeNull();
    expect(sim.requests().map((r) => r.status)).toEqual([404, 404, 404]);
  });

  it('when the provider fails (503), then the lookup throws FlightStatusUnavailable naming the status', async () => {
    sim.script({ flight_number: 'UL504', date: DATE, scheduled_arrival: S, scenario: 'failing' });
    const err = await failure(flights().lookup(UL504));
    expect(err).toBeInstanceOf(FlightStatusUnavailable);
    expect(err.message).toMatch(/503/);
    expect(err.message).not.toContain(KEY);
  });

  it('when the key is wrong or missing, then the provider refuses (401) and the error does not carry the key', async () => {
    sim.script({ flight_number: 'UL504', date: DATE, scheduled_arrival: S, scenario: 'on_time' });
    const wrongKey = `${KEY}-old`;
    const wrong = await failure(createHttpFlightStatus({ url: served.url, key: wrongKey }).lookup(UL504));
    expect(wrong).toBeInstanceOf(FlightStatusUnavailable);
    expect(wrong.message).toMatch(/401/);
    expect(`${wrong.message}\n${wrong.stack}`).not.toContain(KEY);
    const none = await failure(createHttpFlightStatus({ url: served.url }).lookup(UL504));
    expect(none).toBeInstanceOf(FlightStatusUnavailable);
    expect(none.message).toMatch(/401/);
    // The right key is accepted: the same lookup answers.
    await expect(flights().lookup(UL504)).resolves.toMatchObject({ status: 'scheduled' });
    expect(sim.requests().map((r) => r.status)).toEqual([401, 401, 200]);
  });

  it('when the service polls, then the simulator records each lookup with its number, date and time', async () => {
    sim.script({ flight_number: 'UL504', date: DATE, scheduled_arrival: S, scenario: 'delayed', minutes: 15 });
    await flights().lookup(UL504);
    clock = plus(S, 5);
    await flights().lookup(UL504);
    expect(sim.requests()).toEqual([
      { number: 'UL504', date: DATE, arrival: 'CMB', at: '2026-12-01T00:00:00.000Z', status: 200 },
      { number: 'UL504', date: DATE, arrival: 'CMB', at: plus(S, 5).toISOString(), status: 200 },
    ]);
  });
});

describe('HTTP flight status, on the wire', () => {
  let served: Served;
  let handler: http.RequestListener;
  let seen: Array<{ url: string; headers: http.IncomingHttpHeaders }>;
  const respond = (status: number, body: unknown, contentType = 'application/json') => {
    handler = (_req, res) => {
      res.writeHead(status, { 'Content-Type': contentType });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
  };
  const good = {
    flight_number: 'UL504',
    date: DATE,
    arrival_airport: 'CMB',
    status: 'delayed',
    scheduled_arrival: S,
    estimated_arrival: '2026-12-01T10:05:00+05:30',
    actual_arrival: null,
  };

  beforeAll(async () => {
    served = await serve((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      handler(req, res);
    });
  });
  afterAll(() => served.close());
  beforeEach(() => {
    seen = [];
    respond(200, good);
  });

  it('when a key is configured, then the lookup sends it as a bearer token, asks for JSON, and encodes the flight number in the path', async () => {
    await createHttpFlightStatus({ url: `${served.url}/v2/`, key: KEY })
      .lookup({ number: 'UL 504/X', date: DATE, airport: 'CMB' })
      .catch(() => undefined);
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe('/v2/flights/UL%20504%2FX?date=2026-12-01&arrival=CMB');
    expect(seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0].headers.accept).toBe('application/json');
  });

  it('when no key is configured, then no Authorization header is sent', async () => {
    await createHttpFlightStatus({ url: served.url }).lookup(UL504);
    expect(seen[0].headers).not.toHaveProperty('authorization');
  });

  it('when times carry a +05:30 offset, then they are read as the instants they name', async () => {
    const report = await createHttpFlightStatus({ url: served.url }).lookup(UL504);
    expect(report).toEqual({ number: 'UL504', status: 'delayed', scheduledArrival: at('2026-12-01T03:55:00Z'), estimatedArrival: at('2026-12-01T04:35:00Z') });
  });

  it('when the flight has landed, then the actual arrival wins over the estimate', async () => {
    respond(200, { ...good, status: 'landed', actual_arrival: '2026-12-01T04:31:00Z' });
    expect(await createHttpFlightStatus({ url: served.url }).lookup(UL504)).toMatchObject({ status: 'landed', estimatedArrival: at('2026-12-01T04:31:00Z') });
  });

  it('when nothing is known of the times, then both are null', async () => {
    respond(200, { ...good, status: 'unknown', scheduled_arrival: null, estimated_arrival: null });
    expect(await createHttpFlightStatus({ url: served.url }).lookup(UL504)).toEqual({
      number: 'UL504',
      status: 'unknown',
      scheduledArrival: null,
      estimatedArrival: null,
    });
  });

  it('when the provider sends a status we do not know, and fields we do not know, then the status is unknown and the rest is read', async () => {
    respond(200, { ...good, status: 'en_route', gate: 'B4' });
    expect(await createHttpFlightStatus({ url: served.url }).lookup(UL504)).toMatchObject({ status: 'unknown', estimatedArrival: at('2026-12-01T04:35:00Z') });
  });

  it.each([
    ['a body that is not JSON', '<html>Bad gateway</html>'],
    ['an empty body', ''],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
    ['a status that is not a string', { ...good, status: 3 }],
    ['a missing field', { ...good, actual_arrival: undefined }],
    ['a time that is a number', { ...good, estimated_arrival: 1796104800 }],
    ['an unparseable time', { ...good, estimated_arrival: 'soon' }],
    ['a time without an offset', { ...good, scheduled_arrival: '2026-12-01T09:25:00' }],
    ['a day that does not exist', { ...good, scheduled_arrival: '2026-02-30T09:25:00Z' }],
    ['an answer about another flight', { ...good, flight_number: 'UL505' }],
    ['an answer about another date', { ...good, date: '2026-12-02' }],
    ['an answer about another airport', { ...good, arrival_airport: 'HRI' }],
  ])('when the provider answers 200 with %s, then the lookup throws FlightStatusUnavailable', async (_what, body) => {
    respond(200, body);
    const err = await failure(createHttpFlightStatus({ url: served.url, key: KEY }).lookup(UL504));
    expect(err).toBeInstanceOf(FlightStatusUnavailable);
    expect(err.message).not.toContain(KEY);
  });

  it.each([500, 502, 429, 400, 403, 301])('when the provider answers %i, then the lookup throws FlightStatusUnavailable naming it', async (status) => {
    handler = (_req, res) => {
      res.writeHead(status, status === 301 ? { Location: 'http://127.0.0.1:1/elsewhere' } : {});
      res.end(JSON.stringify(good));
    };
    const err = await failure(createHttpFlightStatus({ url: served.url, key: KEY }).lookup(UL504));
    expect(err).toBeInstanceOf(FlightStatusUnavailable);
    expect(err.message).toContain(String(status));
    expect(err.message).not.toContain(KEY);
    expect(seen).toHaveLength(1); // a redirect is not followed
  });

  it('when the provider never answers, then the lookup gives up after timeoutMs with a timeout error', async () => {
    handler = () => undefined; // holds the request open
    const started = Date.now();
    const err = await failure(createHttpFlightStatus({ url: served.url, key: KEY, timeoutMs: 100 }).lookup(UL504));
    expect(err).toBeInstanceOf(FlightStatusUnavailable);
    expect(err.message).toMatch(/timeout/);
    expect(err.message).not.toContain(KEY);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('when the provider stalls in the middle of the body, then the timeout still applies', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"flight_number":"UL504",'); // and nothing more
    };
    const err = await failure(createHttpFlightStatus({ url: served.url, timeoutMs: 100 }).lookup(UL504));
    expect(err).toBeInstanceOf(FlightStatusUnavailable);
    expect(err.message).toMatch(/timeout/);
  });

  it('when the provider cannot be reached, then the lookup throws FlightStatusUnavailable without the key or the URL', async () => {
    const gone = await serve(() => undefined);
    await gone.close(); // a port nobody listens on now
    const err = await failure(createHttpFlightStatus({ url: gone.url, key: KEY }).lookup(UL504));
    expect(err).toBeInstanceOf(FlightStatusUnavailable);
    expect(err.message).toMatch(/unreachable/);
    expect(err.message).not.toContain(KEY);
    expect(err.message).not.toContain(gone.url);
  });

  it('when fetch is injected, then the lookup uses it', async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response(JSON.stringify(good), { status: 200, headers: { 'Content-Type': 'application/json' } });
    };
    await expect(createHttpFlightStatus({ url: 'https://flights.example', fetch }).lookup(UL504)).resolves.toMatchObject({ status: 'delayed' });
    expect(calls).toEqual(['https://flights.example/flights/UL504?date=2026-12-01&arrival=CMB']);
    expect(seen).toHaveLength(0);
  });

  it('when the options are wrong, then creating the adapter fails at once', () => {
    expect(() => createHttpFlightStatus({ url: 'flights.example' })).toThrow(/http\(s\) URL/);
    expect(() => createHttpFlightStatus({ url: 'ftp://flights.example' })).toThrow(/http\(s\) URL/);
    expect(() => createHttpFlightStatus({ url: served.url, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
