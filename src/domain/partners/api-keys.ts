import { createHash, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { ApiKeyModel, PartnerModel } from '../../data/models/partner-model';
import { keyId as newKeyId, keySecret } from '../../shared/ids';
import { notFound } from '../../shared/errors';

export type Env = 'sandbox' | 'production';
const PREFIX: Record<Env, string> = { sandbox: 'svc_sk_test_', production: 'svc_sk_live_' };
const KEY_SHAPE = /^svc_sk_(test|live)_([a-z0-9]{12})_([A-Za-z0-9]{40})$/;

const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');
/** Compared against when the key id is unknown, so unknown and wrong-secret keys cost the same time. */
const DUMMY_HASH = hashSecret('no-such-key-no-such-key-no-such-key-0000');

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

const toInfo = (k: ApiKeyModel): KeyInfo => ({
  key_id: k.keyId,
  partner_id: k.partnerId,
  env: k.env,
  prefix: `${PREFIX[k.env]}${k.keyId}_`,
  created_at: k.createdAt.toISOString(),
  revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
});

/** Issues a key. The full key exists only in this return value: the database keeps its hash. */
export async function issueKey(trx: Knex.Transaction, partnerId: string, env: Env) {
  const partner = await PartnerModel.query(trx).findById(partnerId);
  if (!partner) throw notFound(`No partner ${partnerId}.`, { partner_id: partnerId });
  const keyId = newKeyId();
  const secret = keySecret();
  const row = await ApiKeyModel.query(trx).insertAndFetch({ keyId, partnerId, env, secretHash: hashSecret(secret) });
  return { key: `${PREFIX[env]}${keyId}_${secret}`, key_id: keyId, env, partner_id: partnerId, created_at: row.createdAt.toISOString() };
}

export async function listKeys(trx: Knex.Transaction, partnerId: string): Promise<KeyInfo[]> {
  const partner = await PartnerModel.query(trx).findById(partnerId);
  if (!partner) throw notFound(`No partner ${partnerId}.`, { partner_id: partnerId });
  const rows = await ApiKeyModel.query(trx).where({ partnerId }).orderBy('createdAt', 'desc');
  return rows.map(toInfo);
}

export async function revokeKey(trx: Knex.Transaction, keyId: string, now: Date): Promise<KeyInfo> {
  const key = await ApiKeyModel.query(trx).findById(keyId).forUpdate();
  if (!key) throw notFound(`No key ${keyId}.`, { key_id: keyId });
  if (!key.revokedAt) await ApiKeyModel.query(trx).findById(keyId).patch({ revokedAt: now });
  return toInfo((await ApiKeyModel.query(trx).findById(keyId))!);
}

export interface Authenticated {
  partnerId: string;
  name: string;
  currency: 'USD' | 'EUR' | 'LKR';
  paused: boolean;
  keyId: string;
  env: Env;
}

/**
 * Resolves a presented key to its partner and environment, or null for every kind of failure (missing,
 * malformed, unknown, wrong secret, revoked, environment mismatch) so callers cannot tell them apart.
 * The secret is hashed and compared in constant time; a revoked key fails on the very next request.
 */
export async function authenticateKey(trx: Knex.Transaction, presented: string | null, now: Date): Promise<Authenticated | null> {
  const parsed = presented ? parseKey(presented) : null;
  if (!parsed) return null;
  const row = (await trx('api_keys as k')
    .join('partners as p', 'p.partner_id', 'k.partner_id')
    .where('k.key_id', parsed.keyId)
    .first('k.key_id', 'k.env', 'k.secret_hash', 'k.revoked_at', 'k.last_used_at', 'p.partner_id', 'p.name', 'p.currency', 'p.paused', 'p.sandbox_paused')) as
    | { keyId: string; env: Env; secretHash: string; revokedAt: Date | null; lastUsedAt: Date | null; partnerId: string; name: string; currency: Authenticated['currency']; paused: boolean; sandboxPaused: boolean }
    | undefined;
  const expected = Buffer.from(row?.secretHash ?? DUMMY_HASH, 'hex');
  const actual = Buffer.from(hashSecret(parsed.secret), 'hex');
  const secretOk = timingSafeEqual(expected, actual);
  if (!row || !secretOk || row.revokedAt || row.env !== parsed.env) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await trx('api_keys').where('key_id', row.keyId).update({ lastUsedAt: now });
  }
  // Quoting is paused by an operator (both environments) or, in sandbox, by the partner's own test helper.
  const paused = row.paused || (row.env === 'sandbox' && row.sandboxPaused);
  return { partnerId: row.partnerId, name: row.name, currency: row.currency, paused, keyId: row.keyId, env: row.env };
}
