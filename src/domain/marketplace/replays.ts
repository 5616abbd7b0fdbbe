import { createHash } from 'node:crypto';
import type { Tx } from '../../data/database';
import { claimSeenCall, recordSeenCall, releaseSeenCall, type SeenCall } from '../../data/repositories/marketplace-repository';
import { AppError } from '../../shared/errors';

/**
 * Replays of the marketplace's order calls. Its signature (PrivateKey over the URL, the body and the key) carries
 * no timestamp or nonce, so a captured call verifies for ever: an old POST /booking/update/ sent again after a newer
 * one would put the old details back. A call identical to one already acted on — same method, same URL as the
 * marketplace addressed it, same body bytes — is therefore answered with the first answer and not acted on again.
 *
 * The call is claimed in the database, in the transaction that acts on it, before it is acted on: with several
 * instances on one database, and with identical calls arriving together, the primary key decides which one acts;
 * the others wait for it to commit and replay its answer. A call whose answer is an error (it rolled back) is not
 * remembered: it did nothing, and sending it again may act.
 */

/** Seen calls are kept at least this long… */
export const SEEN_CALL_RETENTION_MS = 30 * 24 * 3600_000;
/** …and, for an order call, until this long after the order's pickup (while a replay could still do harm). */
export const SEEN_CALL_AFTER_PICKUP_MS = 7 * 24 * 3600_000;

/** SHA-256 hex of (method, the URL as addressed, the raw body bytes): equal exactly when the calls are identical. */
export function callDigest(method: string, addressedUrl: string, rawBody: Buffer): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${addressedUrl}\n`, 'utf8').update(rawBody).digest('hex');
}

export interface InboundCall {
  digest: string;
  operation: string;
  orderId: string | null;
  requestId: string;
  now: Date;
}

/** What a call answered, as sent: a replay gets back the same status and the exact bytes. */
export interface CallAnswer {
  status: number;
  body: string;
}

export type Once<T> = { replayed: true; first: SeenCall } | { replayed: false; value: T };

/** An identical call is being acted on and did not finish within lock_timeout: retry, and its answer comes back. */
const inFlight = () =>
  new AppError('service_unavailable', 'An identical call is still being processed; retry to receive its answer.', {}, { retryAfterSeconds: 1 });

/**
 * Acts on `call` once, in `tx`: either it was acted on before (the first answer comes back and `act` does not run),
 * or `act` runs and its answer is stored with it — when `answerOf` gives one (the caller gives none for an answer
 * that is an error: that call is not remembered). If `act` throws, the claim rolls back with everything else.
 */
export async function actOnce<T>(tx: Tx, call: InboundCall, act: () => Promise<T>, answerOf: (value: T) => CallAnswer | null): Promise<Once<T>> {
  const claim = await claimSeenCall(tx, call, call.now);
  if (claim.kind === 'busy') throw inFlight();
  if (claim.kind === 'seen') return { replayed: true, first: claim.answer };
  const value = await act();
  const answer = answerOf(value);
  if (answer) await recordSeenCall(tx, call.digest, answer.status, answer.body);
  else await releaseSeenCall(tx, call.digest);
  return { replayed: false, value };
}
