import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';

/**
 * A scripted flight-status provider: the API src/adapters/flights/http-flight-status.ts calls, answering from
 * scripts that tests (or a person, over POST /_scenarios) set per flight and date. Time is `now()`, so a test moves
 * a flight from delayed to landed by moving its clock. In memory only; see README.md for what it does not model.
 */

export const SCENARIOS = ['on_time', 'delayed', 'landed_early', 'diverted', 'cancelled', 'failing'] as const;
export type FlightScenario = (typeof SCENARIOS)[number];

/** A flight's script: the body of POST /_scenarios. */
export interface FlightScript {
  flight_number: string;
  /** The scheduled arrival's local date (YYYY-MM-DD), as the lookup's `date`. */
  date: string;
  /** RFC 3339 with an offset. */
  scheduled_arrival: string;
  scenario: FlightScenario;
  /** For `delayed` and `landed_early` (required there, refused elsewhere): 1–1440. */
  minutes?: number;
  /** Where it arrives; a lookup for another `arrival` is 404. Default CMB. */
  arrival_airport?: string;
}

/** One lookup received on GET /flights/{number}, whatever it was answered. */
export interface FlightLookupRecord {
  number: string;
  date: string | null;
  arrival: string | null;
  /** The simulator's clock when it arrived. */
  at: string;
  /** What it was answered (401, 400, 404, 503 or 200). */
  status: number;
}

/** The provider's 200 body. */
export interface FlightAnswer {
  flight_number: string;
  date: string;
  arrival_airport: string;
  status: 'scheduled' | 'delayed' | 'landed' | 'diverted' | 'cancelled' | 'unknown';
  scheduled_arrival: string | null;
  estimated_arrival: string | null;
  actual_arrival: string | null;
}

export interface FlightSimulatorOptions {
  /** When set, lookups must carry `Authorization: Bearer {key}` (else 401). Controls never need it. */
  key?: string;
  now?: () => Date;
}

export interface FlightSimulator {
  app: express.Express;
  /** Sets (or replaces) a flight's script; throws FlightSimError (400) when the script is not valid. */
  script(flight: FlightScript): void;
  /** Forgets every script and every recorded lookup. */
  reset(): void;
  /** The lookups received, oldest first. */
  requests(): FlightLookupRecord[];
}

export class FlightSimError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'FlightSimError';
  }
}

const MINUTE = 60_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// RFC 3339 date-time with a mandatory offset (as the adapter requires); validDay and Date.parse check the numbers.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether a string starting YYYY-MM-DD names a real day (Date.parse would roll 2026-02-30 over to March 2). */
function validDay(s: string): boolean {
  const [y, m, d] = [Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10))];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

const keyOf = (number: string, date: string) => `${number.replace(/\s+/g, '').toUpperCase()} ${date}`;

export function createFlightSimulator(opts: FlightSimulatorOptions = {}): FlightSimulator {
  const now = opts.now ?? (() => new Date());
  const scripts = new Map<string, Required<Omit<FlightScript, 'minutes'>> & { minutes?: number }>();
  const lookups: FlightLookupRecord[] = [];
  const keyDigest = opts.key ? sha256(`Bearer ${opts.key}`) : undefined;

  const script = (input: FlightScript) => {
    const s = parseScript(input);
    scripts.set(keyOf(s.flight_number, s.date), s);
  };
  const reset = () => {
    scripts.clear();
    lookups.length = 0;
  };

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');

  app.get('/flights/:number', (req, res) => {
    const date = typeof req.query.date === 'string' ? req.query.date : null;
    const arrival = typeof req.query.arrival === 'string' ? req.query.arrival : null;
    const record: FlightLookupRecord = { number: req.params.number, date, arrival, at: now().toISOString(), status: 0 };
    lookups.push(record);
    const reply = (status: number, body: unknown) => {
      record.status = status;
      res.status(status).json(body);
    };

    if (keyDigest) {
      const given = req.get('authorization');
      if (!given || !timingSafeEqual(sha256(given), keyDigest)) {
        res.set('WWW-Authenticate', 'Bearer');
        return reply(401, { error: 'unauthorized' });
      }
    }
    if (!date || !DATE.test(date)) return reply(400, { error: 'date must be YYYY-MM-DD' });
    if (!arrival) return reply(400, { error: 'arrival is required (an IATA airport code)' });
    const s = scripts.get(keyOf(req.params.number, date));
    if (!s || s.arrival_airport.toUpperCase() !== arrival.toUpperCase()) return reply(404, { error: 'flight not found' });
    if (s.scenario === 'failing') return reply(503, { error: 'service unavailable' });
    return reply(200, answerFor(s, now()));
  });

  app.use('/_scenarios', express.json({ limit: '64kb' }));
  app.post('/_scenarios', (req, res) => {
    const s = parseScript(req.body);
    scripts.set(keyOf(s.flight_number, s.date), s);
    res.status(201).json({ flight: s });
  });
  app.get('/_scenarios', (_req, res) => {
    res.json({ flights: [...scripts.values()] });
  });
  app.delete('/_scenarios', (_req, res) => {
    reset();
    res.json({ status: 'reset' });
  });
  app.get('/_requests', (_req, res) => {
    res.json({ requests: lookups });
  });

  app.use((_req, _res) => {
    throw new FlightSimError(404, 'not found');
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const parseFailed = (err as { type?: string })?.type === 'entity.parse.failed';
    const status = err instanceof FlightSimError ? err.status : parseFailed ? 400 : 500;
    const message = err instanceof FlightSimError ? err.message : parseFailed ? 'the body is not valid JSON' : 'simulator error';
    if (!res.headersSent) res.status(status).json({ error: message });
  });

  return { app, script, reset, requests: () => lookups.map((r) => ({ ...r })) };
}

/** What the provider says of a scripted flight at `at`. */
export function answerFor(
  s: Pick<FlightScript, 'flight_number' | 'date' | 'scheduled_arrival' | 'scenario' | 'minutes' | 'arrival_airport'>,
  at: Date,
): FlightAnswer {
  const scheduled = new Date(s.scheduled_arrival);
  const base = {
    flight_number: s.flight_number,
    date: s.date,
    arrival_airport: (s.arrival_airport ?? 'CMB').toUpperCase(),
    scheduled_arrival: scheduled.toISOString(),
  };
  // The time it arrives: landed once the clock reaches it.
  const arrives = (t: Date, before: 'scheduled' | 'delayed'): FlightAnswer =>
    at.getTime() >= t.getTime()
      ? { ...base, status: 'landed', estimated_arrival: t.toISOString(), actual_arrival: t.toISOString() }
      : { ...base, status: before, estimated_arrival: t.toISOString(), actual_arrival: null };
  const minutes = s.minutes ?? 0;
  switch (s.scenario) {
    case 'on_time':
      return arrives(scheduled, 'scheduled');
    case 'delayed':
      return arrives(new Date(scheduled.getTime() + minutes * MINUTE), 'delayed');
    case 'landed_early':
      return arrives(new Date(scheduled.getTime() - minutes * MINUTE), 'scheduled');
    case 'diverted':
    case 'cancelled':
      return { ...base, status: s.scenario, estimated_arrival: null, actual_arrival: null };
    case 'failing':
      throw new FlightSimError(503, 'service unavailable');
  }
}

function parseScript(input: unknown): Required<Omit<FlightScript, 'minutes'>> & { minutes?: number } {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new FlightSimError(400, 'the body must be a JSON object');
  const b = input as Record<string, unknown>;
  const known = ['flight_number', 'date', 'scheduled_arrival', 'scenario', 'minutes', 'arrival_airport'];
  const unknown = Object.keys(b).filter((k) => !known.includes(k));
  if (unknown.length) throw new FlightSimError(400, `unknown field(s): ${unknown.join(', ')}`);
  if (typeof b.flight_number !== 'string' || !b.flight_number.trim()) throw new FlightSimError(400, 'flight_number must be a non-empty string');
  if (typeof b.date !== 'string' || !DATE.test(b.date) || !validDay(b.date)) throw new FlightSimError(400, 'date must be YYYY-MM-DD');
  if (
    typeof b.scheduled_arrival !== 'string' ||
    !RFC3339.test(b.scheduled_arrival) ||
    !validDay(b.scheduled_arrival) ||
    Number.isNaN(Date.parse(b.scheduled_arrival))
  )
    throw new FlightSimError(400, 'scheduled_arrival must be an RFC 3339 time with an offset, e.g. 2026-12-01T09:25:00+05:30');
  if (typeof b.scenario !== 'string' || !(SCENARIOS as readonly string[]).includes(b.scenario))
    throw new FlightSimError(400, `scenario must be one of ${SCENARIOS.join(', ')}`);
  const scenario = b.scenario as FlightScenario;
  const timed = scenario === 'delayed' || scenario === 'landed_early';
  if (timed && !(Number.isInteger(b.minutes) && (b.minutes as number) >= 1 && (b.minutes as number) <= 1440))
    throw new FlightSimError(400, `${scenario} needs minutes (an integer, 1–1440)`);
  if (!timed && b.minutes !== undefined) throw new FlightSimError(400, 'minutes applies to delayed and landed_early only');
  if (b.arrival_airport !== undefined && (typeof b.arrival_airport !== 'string' || !/^[A-Za-z]{3}$/.test(b.arrival_airport)))
    throw new FlightSimError(400, 'arrival_airport must be an IATA airport code');
  return {
    flight_number: b.flight_number,
    date: b.date,
    scheduled_arrival: b.scheduled_arrival,
    scenario,
    ...(timed ? { minutes: b.minutes as number } : {}),
    arrival_airport: ((b.arrival_airport as string | undefined) ?? 'CMB').toUpperCase(),
  };
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
