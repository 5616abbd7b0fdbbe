import { Webhook } from 'standardwebhooks';
import * as repo from '../../data/repositories/webhook-endpoints-repository';
import type { Env } from '../../data/repositories/webhook-endpoints-repository';
import { claimWebhookDeliveries, releaseEndpoint } from '../../data/repositories/webhook-delivery-repository';
import { appendAudit } from '../../data/repositories/audit-repository';
import type { Database } from '../../data/database';
import type { Config } from '../../config/env';
import { systemClock, type Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { exchangeAudit } from '../audit/exchange-audit';
import type { OutboundExchange } from '../kernel/outbound-exchange';
import { syntheticExchange, type Claimed, type OutboxChannel, type Outcome } from '../outbox/channel';
import { privateAllowed } from './targets';

/**
 * Delivering webhooks through the outbox: one message per event and endpoint, claimed, leased and retried like
 * every outbox message, and audited per attempt (surface `webhooks`, direction `outbound`, request id
 * `outbox_<id>_a<attempt>`). Any answer but a 2xx is a failure, retried on the Svix schedule: at once, then after
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (8 attempts over some 27.5 hours). An endpoint whose deliveries have
 * all failed for 3 days is disabled, and its waiting deliveries fail, for an operator to look at.
 */
export const RETRY_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;
const DISABLED_REASON = 'every delivery failed for 3 days';

/** Signs one delivery per Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret, space-separated. */
export function signatureHeader(eventId: string, timestamp: Date, body: string, secrets: readonly string[]): string {
  return secrets.map((s) => new Webhook(s).sign(eventId, timestamp, body)).join(' ');
}

export interface WebhookPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Private and loopback targets allowed (sandbox endpoints, when the operator allows them). */
  allowPrivate: boolean;
  /** The audit row's request id (outbox_<id>_a<attempt>). */
  requestId: string;
  startedAt: Date;
}

/** One delivery attempt, ready for the audit log; `ok` when the receiver answered 2xx. */
export interface WebhookAttempt {
  ok: boolean;
  error: string | null;
  exchange: OutboundExchange;
}

/** The port deliveries go out through; HttpWebhookSender implements it. Never rejects: a failure is an attempt. */
export interface WebhookPoster {
  readonly timeoutMs: number;
  post(p: WebhookPost): Promise<WebhookAttempt>;
}

/** A partner's endpoints with an attempt in flight at once, at most (per environment; each endpoint has one at most). */
export const PER_PARTNER_IN_FLIGHT = 4;

export interface WebhookChannelOptions {
  /** The environment whose deliveries this channel takes (each has a loop of its own); both when unset. */
  env?: Env;
  /** Attempts in flight at most. Default 16. */
  batchSize?: number;
  /** Added to the timeout to size a claim's lease. Default 10 s (recording an outcome is one short transaction). */
  leaseMarginMs?: number;
  /** The clock of `webhook-timestamp`: the real time, which receivers check against theirs. */
  wallClock?: Clock;
}

/** What the webhooks' channel needs of the service: the database, the logger, and whether private targets are allowed. */
export interface WebhookChannelDeps {
  db: Database;
  logger: Logger;
  config: { webhooks: Pick<Config['webhooks'], 'allowPrivateTargets'> };
}

export function webhookChannel(deps: WebhookChannelDeps, poster: WebhookPoster, opts: WebhookChannelOptions = {}): OutboxChannel {
  const wallClock = opts.wallClock ?? systemClock;
  const envs: Env[] = opts.env ? [opts.env] : ['production', 'sandbox'];
  return {
    name: opts.env ? `webhooks:${opts.env}` : 'webhooks',
    kinds: ['webhook'],
    leaseMs: poster.timeoutMs + (opts.leaseMarginMs ?? 10_000),
    batchSize: opts.batchSize ?? 16,
    // Fair: one attempt per endpoint at a time, a few per partner, endpoints served round robin (the claim's SQL).
    async claim(db, now, leaseUntil, limit, exclude) {
      const claimed: Claimed[] = [];
      for (const env of envs) {
        if (claimed.length >= limit) break;
        const q = { env, now, leaseUntil, limit: limit - claimed.length, perPartner: PER_PARTNER_IN_FLIGHT, exclude };
        claimed.push(...(await claimWebhookDeliveries(db, q)));
      }
      return claimed;
    },
    retryDelayMs: (attempt) => RETRY_SCHEDULE_MS[Math.min(attempt, RETRY_SCHEDULE_MS.length) - 1],
    // The endpoint before its delivery, as every writer of both does (an operator disabling it fails its deliveries).
    lockFirst: async (tx, msg) => void (await repo.findEndpointForUpdate(tx, msg.endpointId!)),

    async send(msg: Claimed, now: Date): Promise<Outcome> {
      const target = await repo.deliveryTarget(deps.db, msg.eventId!, msg.endpointId!, now);
      if (!target || target.status !== 'enabled') {
        const error = `not sent: the endpoint is ${target?.status ?? 'gone'}`;
        return {
          ok: false,
          retryable: false,
          status: null,
          error,
          exchange: syntheticExchange(msg, error, now, `webhook_endpoints/${msg.endpointId}`),
          context: target,
        };
      }
      const sentAt = wallClock.now();
      const attempt = await poster.post({
        url: target.url,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'LankaTransfers-Webhooks/1.0',
          'webhook-id': target.eventId,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signatureHeader(target.eventId, sentAt, target.payload, target.secrets),
        },
        body: target.payload,
        allowPrivate: privateAllowed(target.env, deps.config.webhooks.allowPrivateTargets),
        requestId: `outbox_${msg.id}_a${msg.attempts}`,
        startedAt: now,
      });
      if (attempt.ok) return { ok: true, exchange: attempt.exchange, context: target };
      return { ok: false, retryable: true, status: attempt.exchange.status, error: attempt.error ?? 'failed', exchange: attempt.exchange, context: target };
    },

    async recorded(tx, msg, outcome, r) {
      await releaseEndpoint(tx, msg.endpointId!, msg.leaseUntil);
      let error = outcome.ok ? null : outcome.error;
      if (r.updated && outcome.ok) await repo.endpointSucceeded(tx, msg.endpointId!);
      else if (r.updated) {
        const e = await repo.endpointFailed(tx, msg.endpointId!, r.now, new Date(r.now.getTime() - DISABLE_AFTER_MS), DISABLED_REASON);
        if (e.disabledNow) {
          await repo.failPendingDeliveries(tx, e.endpointId, `endpoint disabled: ${DISABLED_REASON}`, r.now);
          error = `${error}; endpoint disabled: ${DISABLED_REASON} (since ${e.failingSince?.toISOString()})`;
          deps.logger.error(
            { endpointId: e.endpointId, partnerId: e.partnerId, env: e.env, url: e.url, failingSince: e.failingSince },
            'webhook endpoint disabled: every delivery failed for 3 days',
          );
        }
      }
      await appendAudit(
        tx,
        await exchangeAudit(r.keys, tx, 'webhooks', outcome.exchange, {
          attempt: msg.attempts,
          error,
          partnerId: outcome.context?.partnerId ?? null,
          env: outcome.context?.env ?? null,
        }),
      );
    },
  };
}
