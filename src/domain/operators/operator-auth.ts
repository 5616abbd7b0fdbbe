import ipaddr from 'ipaddr.js';
import type { Sql } from '../../data/database';
import { findAuthFailures, recordAuthFailure } from '../../data/repositories/operator-auth-repository';
import { findOperatorByTokenHash, operatorStillValid } from '../../data/repositories/operators-repository';

/** What a named operator's request asserts when it commits: the operator still unrevoked. */
export const operatorFreshAtCommit = operatorStillValid;
import { sameSecret } from '../../shared/secrets';
import { BOOTSTRAP_OPERATOR, hashOperatorToken, type OperatorRole } from './operators';

/**
 * Wrong operator tokens are slowed down per client, then refused. The counts live in the database, so they hold
 * across instances and restarts. A client is an address (as TRUST_PROXY decides it); an IPv6 address counts by its
 * /64 (one host usually holds the whole /64, so counting single addresses would not slow it down at all).
 *
 * A valid token is never slowed or refused, and does not reset the count: the count only decides how wrong tokens
 * are answered, so an attacker who shares an address with operators (a proxy, a NAT) can neither lock them out nor
 * use their traffic to reset its own count. Guessing stays out of reach anyway: a token has 238 bits (OPERATOR_TOKEN
 * at least 32 characters in production).
 */
export const OPERATOR_AUTH_RULES = {
  /** From this many wrong tokens in a row, each 401 waits before it is sent … */
  slowFrom: 3,
  /** … this long at first, doubling with each further wrong token, up to maxDelayMs. */
  firstDelayMs: 500,
  maxDelayMs: 4_000,
  /** From this many, the client's wrong tokens are refused outright (with Retry-After) for refuseForMs. */
  refuseFrom: 10,
  refuseForMs: 15 * 60_000,
  /** A count with no new failure for this long starts again. */
  forgetAfterMs: 15 * 60_000,
};

export interface Operator {
  operatorId: string;
  name: string;
  role: OperatorRole;
}

/** The client a request counts against: its address (IPv4-mapped IPv6 as IPv4), or its IPv6 /64. */
export function authClient(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address || 'unknown';
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${(ip as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

const delayFor = (failures: number) =>
  failures < OPERATOR_AUTH_RULES.slowFrom
    ? 0
    : Math.min(OPERATOR_AUTH_RULES.maxDelayMs, OPERATOR_AUTH_RULES.firstDelayMs * 2 ** (failures - OPERATOR_AUTH_RULES.slowFrom));

/**
 * A refused client's wrong token waits as long as the last slowed one did: were refusals quicker, the answer's time
 * would tell a guesser the lockout had started, and let it probe how long it lasts at no cost.
 */
export const LOCKED_OUT_DELAY_MS = delayFor(OPERATOR_AUTH_RULES.refuseFrom - 1);

const secondsUntil = (t: Date, now: Date) => Math.max(1, Math.ceil((t.getTime() - now.getTime()) / 1000));

/** The operator a bearer token belongs to: OPERATOR_TOKEN's bootstrap admin, or a named, unrevoked operator. */
async function operatorOf(db: Sql, presented: string, bootstrapToken: string): Promise<Operator | undefined> {
  if (sameSecret(presented, bootstrapToken)) return BOOTSTRAP_OPERATOR;
  if (!presented.startsWith('op_')) return undefined;
  const row = await findOperatorByTokenHash(db, hashOperatorToken(presented));
  return row ? { operatorId: row.operatorId, name: row.name, role: row.role } : undefined;
}

/** Checks an operator's `Authorization` header for `client` (see checkBearer). */
export async function checkOperatorToken(
  db: Sql,
  input: { client: string; authorization: string | undefined; token: string; now: Date },
): Promise<BearerVerdict<Operator>> {
  return checkBearer(db, input, (presented) => operatorOf(db, presented, input.token));
}

export type BearerVerdict<T> = { ok: true; who: T } | { ok: false; delayMs: number; retryAfterSeconds?: number };

/**
 * Checks an `Authorization: Bearer` header for `client`, with `lookup` telling whose token it is (operators',
 * drivers'). A valid token is accepted whatever the client's count. A request without the header guessed nothing
 * and is not counted; a wrong token is counted, then slowed, then refused with Retry-After while the client is
 * refused. Operators and drivers share the count: a client guessing at one is slowed at both.
 */
export async function checkBearer<T>(
  db: Sql,
  input: { client: string; authorization: string | undefined; now: Date },
  lookup: (presented: string) => Promise<T | undefined>,
): Promise<BearerVerdict<T>> {
  const { client, authorization, now } = input;
  const m = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const who = m ? await lookup(m[1]) : undefined;
  if (who) return { ok: true, who };
  const known = await findAuthFailures(db, client);
  // Without a token nothing was guessed: answered at once, refused or not, as before the lockout.
  const lockedOutDelay = authorization === undefined ? 0 : LOCKED_OUT_DELAY_MS;
  if (known?.refusedUntil && known.refusedUntil > now) return { ok: false, delayMs: lockedOutDelay, retryAfterSeconds: secondsUntil(known.refusedUntil, now) };
  if (authorization === undefined) return { ok: false, delayMs: 0 };
  const after = await recordAuthFailure(db, client, now, OPERATOR_AUTH_RULES);
  if (after.refusedUntil && after.refusedUntil > now) return { ok: false, delayMs: lockedOutDelay, retryAfterSeconds: secondsUntil(after.refusedUntil, now) };
  return { ok: false, delayMs: delayFor(after.failures) };
}
