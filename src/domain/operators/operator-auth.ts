import ipaddr from 'ipaddr.js';
import type { Sql } from '../../data/database';
import { clearAuthFailures, findAuthFailures, recordAuthFailure } from '../../data/repositories/operator-auth-repository';
import { sameSecret } from '../../shared/secrets';

/**
 * Wrong operator tokens are slowed down per client, then refused. The counts live in the database, so they hold
 * across instances and restarts. A client is an address; an IPv6 address counts by its /64 (one host usually holds
 * the whole /64, so counting single addresses would not slow it down at all).
 */
export const OPERATOR_AUTH_RULES = {
  /** From this many wrong tokens in a row, each 401 waits before it is sent … */
  slowFrom: 3,
  /** … this long at first, doubling with each further wrong token, up to maxDelayMs. */
  firstDelayMs: 500,
  maxDelayMs: 4_000,
  /** From this many, the client is refused outright (whatever token it sends) for refuseForMs. */
  refuseFrom: 10,
  refuseForMs: 15 * 60_000,
  /** A count with no new failure for this long starts again. */
  forgetAfterMs: 15 * 60_000,
};

export type OperatorAuth =
  | { ok: true }
  /** `delayMs`: how long to hold the 401; `retryAfterSeconds`: set while the client is refused outright. */
  | { ok: false; delayMs: number; retryAfterSeconds?: number };

/** The client a request counts against: its address (IPv4-mapped IPv6 as IPv4), or its IPv6 /64. */
export function authClient(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address || 'unknown';
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${(ip as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

const delayFor = (failures: number) =>
  failures < OPERATOR_AUTH_RULES.slowFrom ? 0 : Math.min(OPERATOR_AUTH_RULES.maxDelayMs, OPERATOR_AUTH_RULES.firstDelayMs * 2 ** (failures - OPERATOR_AUTH_RULES.slowFrom));

const secondsUntil = (t: Date, now: Date) => Math.max(1, Math.ceil((t.getTime() - now.getTime()) / 1000));

/**
 * Checks an `Authorization` header against the operator token for `client`. A refused client gets no check at all
 * (so a guess cannot succeed while it is refused). A request without the header guessed nothing and is not counted;
 * a right token forgets the client's failures.
 */
export async function checkOperatorToken(db: Sql, input: { client: string; authorization: string | undefined; token: string; now: Date }): Promise<OperatorAuth> {
  const { client, authorization, token, now } = input;
  const known = await findAuthFailures(db, client);
  if (known?.refusedUntil && known.refusedUntil > now) return { ok: false, delayMs: 0, retryAfterSeconds: secondsUntil(known.refusedUntil, now) };
  if (authorization === undefined) return { ok: false, delayMs: 0 };
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (m && sameSecret(m[1], token)) {
    if (known) await clearAuthFailures(db, client);
    return { ok: true };
  }
  const after = await recordAuthFailure(db, client, now, OPERATOR_AUTH_RULES);
  if (after.refusedUntil && after.refusedUntil > now) return { ok: false, delayMs: 0, retryAfterSeconds: secondsUntil(after.refusedUntil, now) };
  return { ok: false, delayMs: delayFor(after.failures) };
}
