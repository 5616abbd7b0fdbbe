import { createHash, randomBytes } from 'node:crypto';
import type { ConfirmationRow } from '../../data/repositories/agents-repository';
import type { AgentRefusal } from './policy';

/** How long a confirmation token is good for. */
export const CONFIRMATION_MINUTES = 10;

/** A new confirmation token (256 random bits) and the hash it is stored by. */
export function newConfirmationToken(): { token: string; hash: string } {
  const token = `mcpc_${randomBytes(32).toString('base64url')}`;
  return { token, hash: confirmationHash(token) };
}

export const confirmationHash = (token: string): string => createHash('sha256').update(token).digest('hex');

const invalid = (reason: string, message: string): AgentRefusal => ({ code: 'confirmation_invalid', message, details: { reason } });

/**
 * Whether a token may confirm this act now: handed out to this key, for this kind of act (and booking), not expired,
 * not used (a booking token used with the same idempotency key is a retry: the caller replays it).
 */
export function confirmationRefusal(
  row: ConfirmationRow | undefined,
  want: { keyId: string; kind: 'book' | 'cancel'; bookingRef?: string; idempotencyKey?: string; now: Date },
): AgentRefusal | undefined {
  const again = want.kind === 'book' ? 'Call prepare_booking again for a new one.' : 'Call preview_cancellation again for a new one.';
  // A token of another key is unknown to this one: the same answer as a token never handed out.
  if (!row || row.keyId !== want.keyId || row.kind !== want.kind)
    return invalid('unknown', `This confirmation token is not one this key was given for this tool. ${again}`);
  if (want.bookingRef !== undefined && row.bookingRef !== want.bookingRef)
    return invalid('other_booking', `This confirmation token was given for booking ${row.bookingRef}, not ${want.bookingRef}. ${again}`);
  if (row.usedAt) {
    if (want.kind === 'book' && row.usedWith === want.idempotencyKey) return undefined;
    return invalid('used', `This confirmation token was already used; a token confirms once. ${again}`);
  }
  if (row.expiresAt.getTime() <= want.now.getTime())
    return invalid('expired', `This confirmation token expired at ${row.expiresAt.toISOString()} (tokens last ${CONFIRMATION_MINUTES} minutes). ${again}`);
  return undefined;
}
