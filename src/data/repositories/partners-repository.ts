import { sql, type Sql } from '../database';
import type { Write } from '../write';
import type { RateLimit } from './rate-limits-repository';
import { ApiKeyModel, PartnerModel, VehicleCodeModel } from '../models/partner-model';
import type { StoredTerms } from './quotes-repository';

export type Env = 'sandbox' | 'production';
export type Currency = 'USD' | 'EUR' | 'LKR';

export interface PartnerRecord {
  partnerId: string;
  name: string;
  currency: Currency;
  paused: boolean;
  sandboxPaused: boolean;
  authVersion: string;
  /** Stored as `{"sandbox": {"requests_per_second", "burst"}}` (see rate-limits-repository.fromStored). */
  rateLimits: unknown;
  createdAt: Date;
}

export interface KeyRecord {
  keyId: string;
  partnerId: string;
  env: Env;
  secretHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** A key with its partner and the partner's vehicle vocabulary: everything a request needs to know of its caller. */
export interface KeyWithPartner {
  keyId: string;
  env: Env;
  secretHash: string;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  partnerId: string;
  name: string;
  currency: Currency;
  paused: boolean;
  sandboxPaused: boolean;
  vocabulary: Record<string, string>;
  /** The partner's terms in force (its quotes are priced with them). */
  terms: StoredTerms;
  /** The partner's rate limits as stored (see rate-limits-repository.fromStored). */
  rateLimits: unknown;
  /** Bumped by the database whenever anything above (but the key's own fields) changes. */
  authVersion: string;
}

const plain = <T>(m: object): T => ({ ...m }) as T;

// One indexed lookup per request: the key, its partner, and the vocabulary and terms quoting needs.
const keyWithPartner = sql(`
  select k.key_id as "keyId", k.env, k.secret_hash as "secretHash", k.revoked_at as "revokedAt", k.last_used_at as "lastUsedAt",
         p.partner_id as "partnerId", p.name, p.currency, p.paused, p.sandbox_paused as "sandboxPaused", p.auth_version::text as "authVersion", p.rate_limits as "rateLimits",
         coalesce((select json_object_agg(v.code, v.vehicle) from partner_vehicle_codes v where v.partner_id = p.partner_id), '{}'::json) as vocabulary,
         json_build_object('version', t.version, 'cancellation_fees', t.cancellation_fees, 'no_show_percent', t.no_show_percent,
           'price_adjustment_percent', t.price_adjustment_percent::float8) as terms
  from api_keys k join partners p on p.partner_id = k.partner_id join partner_terms t on t.partner_id = p.partner_id and t.version = p.terms_version
  where k.key_id = $1`);

export async function findKeyWithPartner(db: Sql, keyId: string): Promise<KeyWithPartner | undefined> {
  return (await db.query<KeyWithPartner>(keyWithPartner, [keyId]))[0];
}

/**
 * What a request that authenticated with this key asserts in its final statement: the key still unrevoked, its
 * partner's auth_version unchanged. If not, the statement fails as a whole (SQLSTATE LT001): nothing is written.
 */
export const keyStillValid = (keyId: string, authVersion: string, bucket?: { scope: string; limit: RateLimit; now: Date }): Write =>
  bucket
    ? {
        ctes: [],
        params: [keyId, authVersion, bucket.scope, bucket.limit.requestsPerSecond, bucket.limit.burst, bucket.now],
        // In this order (CASE evaluates in order): a stale limit is found stale before its bucket is taken from.
        asserts: ['case when assert_key_fresh($1::text, $2::bigint) then take_rate_token($3::text, $4::float8, $5::float8, $6::timestamptz) end'],
      }
    : { ctes: [], params: [keyId, authVersion], asserts: ['assert_key_fresh($1::text, $2::bigint)'] };

/** The statement failed because the credentials it asserted changed meanwhile (see keyStillValid). */
export const isStaleCredentials = (e: unknown): boolean => (e as { code?: string })?.code === 'LT001';

/** The key's last-used time, written with the request's audit row (no round trip of its own). */
export const touchKeyWrite = (keyId: string, at: Date): Write => ({
  ctes: ['touch_key as (update api_keys set last_used_at = $1::timestamptz where key_id = $2::text returning 1)'],
  params: [at, keyId],
});

export async function insertPartner(db: Sql, p: Pick<PartnerRecord, 'partnerId' | 'name' | 'currency'>): Promise<PartnerRecord> {
  return plain(await PartnerModel.query(db.knex).insertAndFetch({ ...p, paused: false }));
}

export async function listPartners(db: Sql): Promise<PartnerRecord[]> {
  return (await PartnerModel.query(db.knex).orderBy('createdAt', 'desc')).map((p) => plain<PartnerRecord>(p));
}

export async function findPartner(db: Sql, partnerId: string): Promise<PartnerRecord | undefined> {
  const p = await PartnerModel.query(db.knex).findById(partnerId);
  return p ? plain(p) : undefined;
}

export async function countPartners(db: Sql): Promise<number> {
  const rows = await db.query<{ n: number }>('select count(*)::int as n from partners');
  return rows[0].n;
}

/** Sets the operator's pause. Undefined when no such partner. */
export async function setPartnerPaused(db: Sql, partnerId: string, paused: boolean): Promise<PartnerRecord | undefined> {
  const n = await PartnerModel.query(db.knex).findById(partnerId).patch({ paused });
  return n ? findPartner(db, partnerId) : undefined;
}

const sandboxPause = sql(`
  update partners p set sandbox_paused = $2
  from (select auth_version from partners where partner_id = $1 for update) before
  where p.partner_id = $1
  returning p.paused, p.sandbox_paused as "sandboxPaused", p.auth_version::text as "authVersion", before.auth_version::text as "authVersionBefore"`);

/** The partner's pauses after a change of its own, and its auth_version before and after (a change bumps it). */
export type SandboxPause = { paused: boolean; sandboxPaused: boolean; authVersion: string; authVersionBefore: string };

/** Sets the partner's own sandbox pause. Undefined when no such partner. */
export async function setSandboxPause(db: Sql, partnerId: string, paused: boolean): Promise<SandboxPause | undefined> {
  return (await db.query<SandboxPause>(sandboxPause, [partnerId, paused]))[0];
}

export async function insertKey(db: Sql, k: Pick<KeyRecord, 'keyId' | 'partnerId' | 'env' | 'secretHash'>): Promise<KeyRecord> {
  return plain(await ApiKeyModel.query(db.knex).insertAndFetch(k));
}

export async function listKeys(db: Sql, partnerId: string): Promise<KeyRecord[]> {
  return (await ApiKeyModel.query(db.knex).where({ partnerId }).orderBy('createdAt', 'desc')).map((k) => plain<KeyRecord>(k));
}

/** Revokes a key (once: a second revoke keeps the first time). Undefined when no such key. */
export async function revokeKey(db: Sql, keyId: string, at: Date): Promise<KeyRecord | undefined> {
  await ApiKeyModel.query(db.knex).findById(keyId).whereNull('revokedAt').patch({ revokedAt: at });
  const k = await ApiKeyModel.query(db.knex).findById(keyId);
  return k ? plain(k) : undefined;
}

export interface VehicleCodeRecord {
  partnerId: string;
  code: string;
  vehicle: string;
}

export async function putVehicleCode(db: Sql, v: VehicleCodeRecord): Promise<void> {
  await db
    .knex('partner_vehicle_codes')
    .insert({ ...v, updatedAt: db.knex.fn.now() })
    .onConflict(['partner_id', 'code'])
    .merge(['vehicle', 'updated_at']);
}

/** Deletes a mapping; returns it, or undefined when there was none. */
export async function deleteVehicleCode(db: Sql, partnerId: string, code: string): Promise<VehicleCodeRecord | undefined> {
  const row = await VehicleCodeModel.query(db.knex).findById([partnerId, code]);
  if (!row) return undefined;
  await VehicleCodeModel.query(db.knex).deleteById([partnerId, code]);
  return { partnerId: row.partnerId, code: row.code, vehicle: row.vehicle };
}

export async function listVehicleCodes(db: Sql, partnerId: string): Promise<VehicleCodeRecord[]> {
  const rows = await VehicleCodeModel.query(db.knex).where({ partnerId }).orderBy('code');
  return rows.map((r) => ({ partnerId: r.partnerId, code: r.code, vehicle: r.vehicle }));
}

/** Serialises first-start set-up across instances starting together (held until the transaction ends). */
export async function lockFirstStart(tx: Sql): Promise<void> {
  await tx.query('select pg_advisory_xact_lock(4242001)');
}
