/**
 * The flight-status port: what the service asks a flight-status provider about an arrival it picks up from. The
 * HTTP adapter (src/adapters/flights/http-flight-status.ts) speaks to FLIGHT_STATUS_URL; tests and the sandbox use
 * their own implementations.
 */

/** What a provider says of a flight: `unknown` when it has no news yet (the flight is far off, say). */
export type FlightState = 'unknown' | 'scheduled' | 'delayed' | 'landed' | 'diverted' | 'cancelled';

export interface FlightQuery {
  /** IATA flight designator as the partner wrote it, normalised: `UL504`. */
  number: string;
  /** The scheduled arrival's date in Sri Lanka (YYYY-MM-DD). */
  date: string;
  /** The arrival airport (IATA), e.g. CMB. */
  airport: string;
}

export interface FlightReport {
  number: string;
  status: FlightState;
  scheduledArrival: Date | null;
  /** The estimated arrival, or the actual one once landed; null when not known. */
  estimatedArrival: Date | null;
}

export interface FlightStatus {
  /**
   * The flight's arrival, or null when the provider does not know the flight. Throws FlightStatusUnavailable when
   * the provider could not answer (network, timeout, 5xx, a body it cannot read): the caller retries later.
   */
  lookup(q: FlightQuery): Promise<FlightReport | null>;
}

export class FlightStatusUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlightStatusUnavailable';
  }
}
