import { hash, timingSafeEqual } from 'node:crypto';
import type { Sql } from '../../data/database';
import type { Write } from '../../data/write';
import * as partners from '../../data/repositories/partners-repository';
import { keyId as newKeyId, keySecret } from '../../shared/ids';
import { notFound } from '../../shared/errors';
import { requirePartner } from './partners';
import { fromStored, type RateLimit } from '../../data/repositories/rate-limits-repository';
import type { KeyCache } from './key-cache';
import type { SaleTerms } from '../terms/terms';

/**
 * What a request that authenticated with a key asserts when it commits: the key unrevoked and its partner's
 * auth_version unchanged, and (with `bucket`) a token taken from the partner's rate-limit bucket.
 */
export const keyFreshAtCommit = partners.keyStillValid;

export type Env = partners.Env;
const PREFIX: Record<Env, string> = { sandbox: 'svc_sk_test_', production: 'svc_sk_live_' };
const KEY_SHAPE = /^svc_sk_(test|live)_([a-z0-9]{12})_([A-Za-z0-9]{40})$/;

const hashSecret = (secret: string): string => hash('sha256', secret, 'hex');
/** Compared against when the key id is unknown, so unknown and wrong-secret keys cost the same time. */
const DUMMY_HASH = hashSecret('no-such-key-no-such-key-no-such-key-0000');
/** last_used_at is written at most this often per key (with the request's audit row). */
const TOUCH_EVERY_MS = 60_000;

export interface ParsedKey {
  env: Env;
  keyId: string;
  secret: string;
}

export function parseKey(presented: string): ParsedKey | null {
  const m = KEY_SHAPE.exec(presented);
  if (!m) return null;
  return { env: m[1] === 'test' ? 'sandbox' : 'production', keyId: m[2], secret: m[3] };
}

/** The key from `Authorization: Bearer …` or, failing that, `X-Api-Key`. */
export function presentedKey(headers: Record<string, string | string[] | undefined>): string | null {
  const auth = headers['authorization'];
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return m ? m[1] : null;
  }
  const x = headers['x-api-key'];
  return typeof x === 'string' && x.trim() ? x.trim() : null;
}

export interface KeyInfo {
  key_id: string;
  partner_id: string;
  env: Env;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

const toInfo = (k: partners.KeyRecord): KeyInfo => ({
  key_id: k.keyId,
  partner_id: k.partnerId,
  env: k.env,
  prefix: `${PREFIX[k.env]}${k.keyId}_`,
  created_at: k.createdAt.toISOString(),
  revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
});

/** Issues a key. The full key exists only in this return value: the database keeps its hash. */
export async function issueKey(tx: Sql, partnerId: string, env: Env) {
  await requirePartner(tx, partnerId);
  const keyId = newKeyId();
  const secret = keySecret();
  const row = await partners.insertKey(tx, { keyId, partnerId, env, secretHash: hashSecret(secret) });
  return { key: `${PREFIX[env]}${keyId}_${secret}`, key_id: keyId, env, partner_id: partnerId, created_at: row.createdAt.toISOString() };
}

export async function listKeys(db: Sql, partnerId: string): Promise<KeyInfo[]> {
  await requirePartner(db, partnerId);
  return (await partners.listKeys(db, partnerId)).map(toInfo);
}

export async function revokeKey(tx: Sql, keyId: string, now: Date): Promise<KeyInfo> {
  const key = await partners.revokeKey(tx, keyId, now);
  if (!key) throw notFound(`No key ${keyId}.`, { key_id: keyId });
  return toInfo(key);
}

export interface Authenticated {
  partnerId: string;
  name: string;
  currency: partners.Currency;
  paused: boolean;
  keyId: string;
  env: Env;
  vocabulary: ReadonlyMap<string, string>;
  /** The partner's terms in force. */
  terms: SaleTerms;
  /** The partner's rate limit in the key's environment, when an operator set one. */
  rateLimit?: RateLimit;
  /** The partner's auth_version as read; the request asserts it at commit (partners.keyStillValid). */
  authVersion: string;
  /** The key's last-used time, when it is due to be written (with the request's audit row). */
  touch?: Write;
}

/**
 * Resolves a presented key to its partner and environment, or null for every kind of failure (missing,
 * malformed, unknown, wrong secret, revoked, environment mismatch) so callers cannot tell them apart.
 * The secret is hashed and compared in constant time. A key authenticated before may come from `cache` (no round
 * trip); the request then asserts in its final statement that nothing changed (see KeyCache), so a revoked key
 * fails on the very next request. `fresh` reads the database whatever the cache holds.
 */
export async function authenticateKey(db: Sql, presented: string | null, now: Date, cache?: KeyCache, fresh = false): Promise<Authenticated | null> {
  const parsed = presented ? parseKey(presented) : null;
  if (!parsed) return null;
  const cached = fresh ? undefined : cache?.get(parsed.keyId);
  const row = cached ?? (await partners.findKeyWithPartner(db, parsed.keyId));
  const expected = Buffer.from(row?.secretHash ?? DUMMY_HASH, 'hex');
  const actual = Buffer.from(hashSecret(parsed.secret), 'hex');
  const secretOk = timingSafeEqual(expected, actual);
  if (!row || !secretOk || row.revokedAt || row.env !== parsed.env) {
    if (row) cache?.forget(row.keyId);
    return null;
  }
  const stale = !row.lastUsedAt || now.getTime() - new Date(row.lastUsedAt).getTime() > TOUCH_EVERY_MS;
  cache?.set(stale ? { ...row, lastUsedAt: now } : row);
  // Quoting is paused by an operator (both environments) or, in sandbox, by the partner's own test helper.
  const paused = row.paused || (row.env === 'sandbox' && row.sandboxPaused);
  return {
    partnerId: row.partnerId,
    name: row.name,
    currency: row.currency,
    paused,
    keyId: row.keyId,
    env: row.env,
    vocabulary: new Map(Object.entries(row.vocabulary ?? {})),
    terms: row.terms,
    rateLimit: fromStored(row.rateLimits)[row.env],
    authVersion: row.authVersion,
    touch: stale ? partners.touchKeyWrite(row.keyId, now) : undefined,
  };
}
