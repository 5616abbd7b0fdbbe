import * as outbox from '../../data/repositories/outbox-repository';
import { saveBrands } from '../../data/repositories/marketplace-repository';
import { appendAudit } from '../../data/repositories/audit-repository';
import { exchangeAudit } from '../audit/exchange-audit';
import { syntheticExchange, type Claimed, type DeliveryPass, type OutboxChannel, type Outcome, type WorkerDeps } from './channel';
import { runPool, startPool, type Attempter } from './pool';
import { isOutboundFailure, OUTBOUND_KINDS, type OutboundKind, type OutboundSender } from './outbox';

export { enqueueOutbound, type OutboundKind, type OutboundSender } from './outbox';

/**
 * Delivers due outbox messages at least once, per channel (the marketplace's calls; partner webhooks, one channel
 * per environment). Each channel's pool (pool.ts), whenever it has a free slot:
 *   1. claims due messages in one short statement (FOR UPDATE SKIP LOCKED, so workers never share a message), taking
 *      a lease (locked_until) longer than a send can last and counting the attempt;
 *   2. sends each with no transaction open;
 *   3. records each outcome and its audit row in a second short transaction, and the slot is free again.
 * A worker that dies after claiming leaves a lease that expires; the message is then claimed again. All state is
 * in the table, so any number of workers and restarts are safe.
 */
export interface OutboxWorkerOptions {
  /** Attempts in flight at most (the pool's slots). Default 10. */
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

const DEFAULTS = { batchSize: 10, baseDelayMs: 2_000, maxDelayMs: 10 * 60_000, leaseMarginMs: 30_000 };

/** Full jitter: uniformly random in [0, min(cap, base·2^(attempt-1))). */
export function backoffDelayMs(attempt: number, opts: OutboxWorkerOptions = {}): number {
  const base = opts.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const cap = opts.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt - 1, 52));
  return Math.floor((opts.random ?? Math.random)() * ceiling);
}

/** The marketplace's calls, sent by its client with exponential backoff and full jitter. */
export function marketplaceChannel(client: OutboundSender, opts: OutboxWorkerOptions = {}): OutboxChannel {
  return {
    name: 'marketplace',
    kinds: OUTBOUND_KINDS,
    leaseMs: client.timeoutMs + (opts.leaseMarginMs ?? DEFAULTS.leaseMarginMs),
    batchSize: opts.batchSize ?? DEFAULTS.batchSize,
    send: (msg, now) => sendToMarketplace(client, msg, now),
    retryDelayMs: (attempt) => backoffDelayMs(attempt, opts),
    async recorded(tx, msg, outcome, r) {
      if (r.updated && outcome.ok && outcome.brands) await saveBrands(tx, outcome.brands, r.now);
      await appendAudit(
        tx,
        await exchangeAudit(r.keys, tx, 'marketplace', outcome.exchange, { attempt: msg.attempts, error: outcome.ok ? null : outcome.error }),
      );
    },
  };
}

/** One pass over the marketplace's due messages. */
export function deliverDueOnce(deps: WorkerDeps, client: OutboundSender, opts: OutboxWorkerOptions = {}): Promise<DeliveryPass> {
  return deliverChannelOnce(deps, marketplaceChannel(client, opts));
}

/**
 * One pass over a channel's due messages, as tests drive deliveries: the channel's pool runs (see pool.ts) until
 * nothing more can be claimed and every attempt has ended. A message is tried at most once per pass, so a retry due
 * at once waits for the next pass.
 */
export function deliverChannelOnce(deps: WorkerDeps, channel: OutboxChannel): Promise<DeliveryPass> {
  return runPool(deps, channel, attempter(deps, channel));
}

/** Claims (the channel's own way, or the lowest due ids of its kinds), and tries one message and records its outcome. */
function attempter(deps: WorkerDeps, channel: OutboxChannel): Attempter {
  return {
    claim: (now, limit, exclude) => {
      const leaseUntil = new Date(now.getTime() + channel.leaseMs);
      return channel.claim ? channel.claim(deps.db, now, leaseUntil, limit, exclude) : outbox.claimDue(deps.db, now, leaseUntil, limit, channel.kinds, exclude);
    },
    attempt: async (msg) => recordOutcome(deps, channel, msg, await channel.send(msg, deps.clock.now())),
  };
}

async function sendToMarketplace(client: OutboundSender, msg: Claimed, startedAt: Date): Promise<Outcome> {
  try {
    const r = await client.sendOutbound(msg.kind as OutboundKind, msg.payload, { requestId: `outbox_${msg.id}_a${msg.attempts}` });
    return { ok: true, exchange: r.exchange, brands: r.brands };
  } catch (e) {
    if (isOutboundFailure(e)) return { ok: false, retryable: e.retryable, status: e.status, error: e.message, exchange: e.exchange };
    // Not a marketplace answer: a bug on our side. Retrying would repeat it, so the message fails for an operator.
    const error = `internal error: ${(e as Error)?.message ?? String(e)}`;
    return { ok: false, retryable: false, status: null, error, exchange: syntheticExchange(msg, error, startedAt) };
  }
}

/**
 * Writes the outcome and what the channel keeps of it (the attempt's audit row above all) together. The update is
 * fenced on the attempt number: if our lease expired and another worker claimed the message meanwhile, its claim
 * wins and ours is only audited.
 */
export async function recordOutcome(deps: WorkerDeps, channel: OutboxChannel, msg: Claimed, outcome: Outcome): Promise<keyof DeliveryPass | undefined> {
  const now = deps.clock.now();
  const next = nextState(msg, outcome, now, channel);
  return deps.db.transaction(async (tx) => {
    await channel.lockFirst?.(tx, msg);
    const updated = await outbox.recordOutcome(tx, msg.id, msg.attempts, next.row, now);
    await channel.recorded(tx, msg, outcome, { updated, result: next.result, now, keys: deps.dataKeys });
    if (!updated) {
      deps.logger.warn({ outboxId: msg.id, attempt: msg.attempts }, 'outbox lease lost before the outcome was recorded');
      return undefined;
    }
    if (next.result === 'failed') deps.logger.error({ outboxId: msg.id, kind: msg.kind, error: outcome.ok ? null : outcome.error }, 'outbox message failed');
    return next.result;
  });
}

function nextState(msg: Claimed, outcome: Outcome, now: Date, channel: OutboxChannel): { result: keyof DeliveryPass; row: outbox.Outcome } {
  const lastStatus = outcome.exchange.status;
  if (outcome.ok) return { result: 'delivered', row: { status: 'delivered', deliveredAt: now, lastStatus } };
  if (!outcome.retryable || msg.attempts >= msg.maxAttempts) {
    return { result: 'failed', row: { status: 'failed', lastStatus, lastError: outcome.error } };
  }
  const nextAttemptAt = new Date(now.getTime() + channel.retryDelayMs(msg.attempts));
  return { result: 'retried', row: { status: 'pending', nextAttemptAt, lastStatus, lastError: outcome.error } };
}

/**
 * Delivers every channel in the background, each on a loop of its own (pool.ts): a channel never waits for another
 * (the marketplace's confirmations never wait behind partners' webhooks, production webhooks never behind sandbox
 * ones), and within a channel an attempt never waits for another: a slot that frees is filled at once. The returned
 * stopper ends the loops and waits for the attempts in flight.
 */
export function startOutboxWorker(deps: WorkerDeps, channels: readonly OutboxChannel[], opts: { pollMs: number }): () => Promise<void> {
  const stops = channels.map((channel) => startPool(deps, channel, attempter(deps, channel), opts));
  return async () => void (await Promise.all(stops.map((stop) => stop())));
}
