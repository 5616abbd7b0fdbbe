import type { Deps } from '../../deps';
import * as outbox from '../../data/repositories/outbox-repository';
import { saveBrands } from '../../data/repositories/marketplace-repository';
import { appendAudit } from '../../data/repositories/audit-repository';
import { exchangeAudit } from '../audit/exchange-audit';
import {
  isOutboundFailure,
  type MarketplaceBrand,
  type OutboundExchange,
  type OutboundKind,
  type OutboundSender,
} from './outbox';

export { enqueueOutbound, type OutboundKind, type OutboundSender } from './outbox';

/**
 * Delivers due outbox messages at least once. Each pass:
 *   1. claims due messages in one short statement (FOR UPDATE SKIP LOCKED, so workers never share a message),
 *      taking a lease (locked_until) longer than a request can last and counting the attempt;
 *   2. sends them with no transaction open;
 *   3. records each outcome and its audit row in a second short transaction.
 * A worker that dies after claiming leaves a lease that expires; the message is then claimed again. All state is
 * in the table, so any number of workers and restarts are safe.
 */
export interface OutboxWorkerOptions {
  /** Messages claimed per pass (sent concurrently). Default 10. */
  batchSize?: number;
  /** Backoff base: the delay after attempt n is random in [0, min(cap, base·2^(n-1))). Default 2 s. */
  baseDelayMs?: number;
  /** Backoff cap. Default 10 min. */
  maxDelayMs?: number;
  /** Added to the client's timeout to size the lease, covering the time to record the outcome. Default 30 s. */
  leaseMarginMs?: number;
  /** Randomness for the jitter, in [0, 1). Default Math.random. */
  random?: () => number;
}

export interface DeliveryPass {
  delivered: number;
  retried: number;
  failed: number;
}

type WorkerDeps = Pick<Deps, 'db' | 'clock' | 'logger'>;

interface Claimed {
  id: string;
  kind: OutboundKind;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
}

type Outcome =
  | { ok: true; exchange: OutboundExchange; brands?: MarketplaceBrand[] }
  | { ok: false; retryable: boolean; status: number | null; error: string; exchange: OutboundExchange };

const DEFAULTS = { batchSize: 10, baseDelayMs: 2_000, maxDelayMs: 10 * 60_000, leaseMarginMs: 30_000 };

/** Full jitter: uniformly random in [0, min(cap, base·2^(attempt-1))). */
export function backoffDelayMs(attempt: number, opts: OutboxWorkerOptions = {}): number {
  const base = opts.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const cap = opts.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt - 1, 52));
  return Math.floor((opts.random ?? Math.random)() * ceiling);
}

/** One pass over the due messages. */
export async function deliverDueOnce(deps: WorkerDeps, client: OutboundSender, opts: OutboxWorkerOptions = {}): Promise<DeliveryPass> {
  const claimed = await claimDue(deps, client, opts);
  const pass: DeliveryPass = { delivered: 0, retried: 0, failed: 0 };
  await Promise.all(
    claimed.map(async (msg) => {
      const outcome = await send(client, msg, deps.clock.now());
      const result = await recordOutcome(deps, msg, outcome, opts);
      if (result) pass[result] += 1;
    }),
  );
  return pass;
}

/** One UPDATE is its own short transaction: the lease and the attempt count commit before anything is sent. */
async function claimDue(deps: WorkerDeps, client: OutboundSender, opts: OutboxWorkerOptions): Promise<Claimed[]> {
  const now = deps.clock.now();
  const leaseMs = client.timeoutMs + (opts.leaseMarginMs ?? DEFAULTS.leaseMarginMs);
  const rows = await outbox.claimDue(deps.db, now, new Date(now.getTime() + leaseMs), opts.batchSize ?? DEFAULTS.batchSize);
  return rows.map((r) => ({ ...r, kind: r.kind as OutboundKind }));
}

async function send(client: OutboundSender, msg: Claimed, startedAt: Date): Promise<Outcome> {
  try {
    const r = await client.sendOutbound(msg.kind, msg.payload, { requestId: `outbox_${msg.id}_a${msg.attempts}` });
    return { ok: true, exchange: r.exchange, brands: r.brands };
  } catch (e) {
    if (isOutboundFailure(e)) return { ok: false, retryable: e.retryable, status: e.status, error: e.message, exchange: e.exchange };
    // Not a marketplace answer: a bug on our side. Retrying would repeat it, so the message fails for an operator.
    const error = `internal error: ${(e as Error)?.message ?? String(e)}`;
    return { ok: false, retryable: false, status: null, error, exchange: syntheticExchange(msg, error, startedAt) };
  }
}

/**
 * Writes the outcome and the attempt's audit row together. The update is fenced on the attempt number: if our
 * lease expired and another worker claimed the message meanwhile, its claim wins and ours is only audited.
 */
async function recordOutcome(
  deps: WorkerDeps,
  msg: Claimed,
  outcome: Outcome,
  opts: OutboxWorkerOptions,
): Promise<keyof DeliveryPass | undefined> {
  const now = deps.clock.now();
  const next = nextState(msg, outcome, now, opts);
  return deps.db.transaction(async (tx) => {
    const updated = await outbox.recordOutcome(tx, msg.id, msg.attempts, next.row, now);
    if (updated && outcome.ok && outcome.brands) await saveBrands(tx, outcome.brands, now);
    await appendAudit(tx, exchangeAudit('marketplace', outcome.exchange, { attempt: msg.attempts, error: outcome.ok ? null : outcome.error }));
    if (!updated) {
      deps.logger.warn({ outboxId: msg.id, attempt: msg.attempts }, 'outbox lease lost before the outcome was recorded');
      return undefined;
    }
    if (next.result === 'failed') deps.logger.error({ outboxId: msg.id, kind: msg.kind, error: outcome.ok ? null : outcome.error }, 'outbox message failed');
    return next.result;
  });
}

function nextState(msg: Claimed, outcome: Outcome, now: Date, opts: OutboxWorkerOptions): { result: keyof DeliveryPass; row: outbox.Outcome } {
  const lastStatus = outcome.exchange.status;
  if (outcome.ok) return { result: 'delivered', row: { status: 'delivered', deliveredAt: now, lastStatus } };
  if (!outcome.retryable || msg.attempts >= msg.maxAttempts) {
    return { result: 'failed', row: { status: 'failed', lastStatus, lastError: outcome.error } };
  }
  const nextAttemptAt = new Date(now.getTime() + backoffDelayMs(msg.attempts, opts));
  return { result: 'retried', row: { status: 'pending', nextAttemptAt, lastStatus, lastError: outcome.error } };
}

function syntheticExchange(msg: Claimed, error: string, startedAt: Date): OutboundExchange {
  return {
    requestId: `outbox_${msg.id}_a${msg.attempts}`,
    startedAt: startedAt.toISOString(),
    method: '-',
    path: `outbox:${msg.kind}`,
    url: '',
    requestHeaders: {},
    requestBody: null,
    status: null,
    responseHeaders: {},
    responseBody: null,
    durationMs: 0,
    error,
  };
}

/**
 * Runs a pass every `pollMs` (the next one is scheduled when the previous ends, so passes never overlap in one
 * process). The returned stopper prevents further passes and waits for the one in flight.
 */
export function startOutboxWorker(
  deps: WorkerDeps,
  client: OutboundSender,
  opts: OutboxWorkerOptions & { pollMs: number },
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    inFlight = deliverDueOnce(deps, client, opts).then(
      (pass) => {
        if (pass.delivered + pass.retried + pass.failed) deps.logger.info(pass, 'outbox pass');
      },
      (err) => deps.logger.warn({ err }, 'outbox pass failed; will retry'),
    );
    void inFlight.then(schedule);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(tick, opts.pollMs);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await inFlight;
  };
}
