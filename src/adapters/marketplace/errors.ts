import type { OutboundExchange } from '../../domain/kernel/outbound-exchange';
import type { OutboundFailure } from '../../domain/outbox/outbox';

/**
 * - timeout: no answer within the client's timeout (the marketplace may or may not have acted on it);
 * - unavailable: connection failure or a 5xx;
 * - rejected: a 4xx, or a 2xx whose body says `"status": "ERROR"`;
 * - invalid_response: an answer that is not the JSON the contract promises.
 */
export type MarketplaceErrorKind = 'timeout' | 'unavailable' | 'rejected' | 'invalid_response';

export type MarketplaceExchange = OutboundExchange;

/** 408 and 429 are refusals that say "later", not "never". */
const RETRYABLE_REFUSALS = new Set([408, 429]);

export class MarketplaceError extends Error implements OutboundFailure {
  constructor(
    readonly kind: MarketplaceErrorKind,
    message: string,
    readonly exchange: MarketplaceExchange,
    /** The HTTP status, or null when no answer arrived. */
    readonly status: number | null = exchange.status,
    /** The marketplace's own `error` text, when it sent one. */
    readonly marketplaceMessage?: string,
  ) {
    super(message);
    this.name = 'MarketplaceError';
  }

  /** Whether sending the same request again may succeed. */
  get retryable(): boolean {
    if (this.kind === 'rejected') return this.status !== null && RETRYABLE_REFUSALS.has(this.status);
    return true;
  }
}

/** Classifies an answer that arrived; `body` is the parsed JSON, or undefined when it was not JSON. */
export function errorFromResponse(exchange: MarketplaceExchange, body: unknown): MarketplaceError {
  const status = exchange.status ?? 0;
  const text = marketplaceErrorText(body);
  const suffix = text ? `: ${text}` : '';
  if (status >= 500) return new MarketplaceError('unavailable', `marketplace answered ${status}${suffix}`, exchange, status, text);
  if (status >= 400 || text !== undefined) {
    return new MarketplaceError('rejected', `marketplace refused the request (${status})${suffix}`, exchange, status, text);
  }
  return new MarketplaceError('invalid_response', `marketplace answered ${status} with a body the contract does not allow`, exchange, status);
}

/** Classifies a request that got no answer. */
export function errorFromTransport(exchange: MarketplaceExchange, err: unknown, timedOut: boolean): MarketplaceError {
  if (timedOut) return new MarketplaceError('timeout', `marketplace did not answer within the timeout`, exchange, null);
  const cause = err instanceof Error && isRecord(err.cause) ? err.cause : undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const detail = text(cause?.code) ?? text(cause?.message) ?? (err instanceof Error ? err.message : String(err));
  return new MarketplaceError('unavailable', `marketplace unreachable: ${detail}`, exchange, null);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function marketplaceErrorText(body: unknown): string | undefined {
  if (isRecord(body) && body.status === 'ERROR') return typeof body.error === 'string' ? body.error : 'ERROR';
  return undefined;
}
