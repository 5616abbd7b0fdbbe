import { randomInt } from 'node:crypto';
import { systemClock, type Clock } from '../../src/shared/clock';
import type { Brand, Order, RequestOf } from './contract';

/**
 * Everything the simulated marketplace remembers, in memory only: the orders it holds (what the authenticated
 * re-fetch serves), every call it received on its `apiin` API, and the scenario knobs. One instance per simulator;
 * reset() empties it.
 */
export interface SimConfig {
  /** MARKETPLACE_USER_ID: the simulator answers under /apiin/{userId}/ only. */
  userId: string;
  /** MARKETPLACE_PRIVATE_KEY: verifies our calls and signs the simulator's own calls to the service. */
  privateKey: string;
}

/**
 * The simulator's view of an order's lifecycle. `order.state` is what it serves (the contract's enum); this adds
 * the change outcome, which the contract's Order has no state for.
 */
export type SimOrderStatus = 'new' | 'confirmed' | 'declined' | 'changed' | 'change_confirmed' | 'change_refused' | 'cancelled' | 'completed' | 'no_show';

export interface SimOrderEvent {
  at: string;
  event: string;
  detail?: unknown;
}

export interface SimOrderRecord {
  order: Order;
  status: SimOrderStatus;
  created_at: string;
  updated_at: string;
  /** Our job reference, as sent with the confirmation. */
  supplier_order_id?: string;
  decline?: Omit<RequestOf<'declineOrder'>, 'order_id'>;
  driver?: Omit<RequestOf<'sendDriverInfo'>, 'order_id'>;
  locations: Array<Omit<RequestOf<'sendDriverLocation'>, 'order_id'>>;
  change?: { accepted: boolean; comment?: string };
  no_show?: RequestOf<'reportNoShow'>['evidence'];
  history: SimOrderEvent[];
}

export type SignatureVerdict = 'ok' | 'missing' | 'malformed' | 'mismatch';

export interface RecordedCall {
  seq: number;
  at: string;
  method: string;
  /** Path and query as received. */
  path: string;
  /** The URL the signature was checked against. */
  url: string;
  operation: string | null;
  headers: Record<string, string>;
  /** The raw body as received ('' for a GET). */
  body: string;
  json?: unknown;
  signature: SignatureVerdict;
  signature_ok: boolean;
  /** The status answered; null while the call is still in progress (or when the caller went away mid-hang). */
  status: number | null;
  /** Set when a scenario, not the contract, decided the answer. */
  fault?: 'fail' | 'timeout';
  duration_ms?: number;
}

export type FailNext = { count: number; status: number } | { count: number; timeout: true; hang_ms?: number };

export interface Scenario {
  /** The next `count` apiin calls fail with `status`, or hang (then 504) — before any other processing. */
  fail_next: FailNext | null;
  /** Added before every apiin answer. */
  latency_ms: number;
  /**
   * Merged into the body the driver posts with a callback, so the posted body differs from the order the
   * simulator serves on re-fetch. Stays until cleared with null.
   */
  callback_body_override: Record<string, unknown> | null;
}

export type Fault = { kind: 'fail'; status: number } | { kind: 'timeout'; hangMs: number };

/** Longer than HttpMarketplaceClient's default 10 s timeout; capped so a forgotten scenario cannot hang forever. */
export const DEFAULT_HANG_MS = 15_000;
export const MAX_HANG_MS = 120_000;
export const MAX_LATENCY_MS = 60_000;
const MAX_CALLS = 10_000;

export const BRANDS: Brand[] = [
  'Toyota',
  'Kia',
  'Mercedes-Benz',
  'Volkswagen',
  'Skoda',
  'Hyundai',
  'Ford',
  'Renault',
  'Fiat',
  'Opel',
  'Nissan',
  'Suzuki',
  'Honda',
  'Mitsubishi',
].map((name, i) => ({ id: i + 1, name }));

const emptyScenario = (): Scenario => ({ fail_next: null, latency_ms: 0, callback_body_override: null });

/** The marketplace speaks Sri Lanka local time (UTC+05:30) without a zone. */
export function localTime(d: Date): string {
  return new Date(d.getTime() + 330 * 60_000).toISOString().replace('T', ' ').slice(0, 19);
}

export class MarketplaceSimState {
  readonly orders = new Map<string, SimOrderRecord>();
  readonly calls: RecordedCall[] = [];
  scenario: Scenario = emptyScenario();
  private seq = 0;

  constructor(
    readonly config: SimConfig,
    readonly clock: Clock = systemClock,
  ) {}

  reset(): void {
    this.orders.clear();
    this.calls.length = 0;
    this.scenario = emptyScenario();
  }

  newOrderId(): string {
    let id: string;
    do id = `INT-${randomInt(100_000, 1_000_000)}`;
    while (this.orders.has(id));
    return id;
  }

  /** Stores (or replaces) the order served on re-fetch; the lifecycle extras of an existing record are kept. */
  putOrder(order: Order, event = 'stored'): SimOrderRecord {
    const now = this.clock.now().toISOString();
    const existing = this.orders.get(order.order_id);
    const record: SimOrderRecord = existing
      ? { ...existing, order, status: order.state, updated_at: now }
      : { order, status: order.state, created_at: now, updated_at: now, locations: [], history: [] };
    record.history.push({ at: now, event, detail: { state: order.state } });
    this.orders.set(order.order_id, record);
    return record;
  }

  /** Moves an order on; `state` is what the re-fetch serves from now on. */
  transition(record: SimOrderRecord, status: SimOrderStatus, state: Order['state'], event: string, detail?: unknown): void {
    const now = this.clock.now();
    record.status = status;
    record.order = { ...record.order, state, updated_at: localTime(now) };
    record.updated_at = now.toISOString();
    record.history.push({ at: now.toISOString(), event, ...(detail === undefined ? {} : { detail }) });
  }

  record(call: Omit<RecordedCall, 'seq' | 'at'>): RecordedCall {
    const full: RecordedCall = { seq: ++this.seq, at: this.clock.now().toISOString(), ...call };
    this.calls.push(full);
    if (this.calls.length > MAX_CALLS) this.calls.splice(0, this.calls.length - MAX_CALLS);
    return full;
  }

  /** Consumes one failure from `fail_next`, if any is left. */
  takeFault(): Fault | null {
    const f = this.scenario.fail_next;
    if (!f || f.count <= 0) return null;
    const left = f.count - 1;
    this.scenario.fail_next = left > 0 ? { ...f, count: left } : null;
    if ('timeout' in f) return { kind: 'timeout', hangMs: Math.min(f.hang_ms ?? DEFAULT_HANG_MS, MAX_HANG_MS) };
    return { kind: 'fail', status: f.status };
  }
}
