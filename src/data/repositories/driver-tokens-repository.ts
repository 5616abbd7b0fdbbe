import { sql, type Sql } from '../database';

export interface DriverTokenRecord {
  tokenId: string;
  driverId: string;
  createdAt: Date;
  createdBy: string;
  revokedAt: Date | null;
}

const COLUMNS = `token_id as "tokenId", driver_id as "driverId", created_at as "createdAt", created_by as "createdBy", revoked_at as "revokedAt"`;

const insert = sql(`insert into driver_tokens (token_id, driver_id, token_hash, created_at, created_by) values ($1, $2, $3, $4, $5) returning ${COLUMNS}`);

export async function insertDriverToken(db: Sql, t: Omit<DriverTokenRecord, 'revokedAt'> & { tokenHash: string }): Promise<DriverTokenRecord> {
  return (await db.query<DriverTokenRecord>(insert, [t.tokenId, t.driverId, t.tokenHash, t.createdAt, t.createdBy]))[0];
}

const byHash = sql(`
  select t.token_id as "tokenId", d.driver_id as "driverId", d.name
  from driver_tokens t join drivers d on d.driver_id = t.driver_id
  where t.token_hash = $1 and t.revoked_at is null and d.active`);

/** The unrevoked token hashing to `tokenHash`, of a driver still on the roster. */
export async function findDriverByTokenHash(db: Sql, tokenHash: string): Promise<{ tokenId: string; driverId: string; name: string } | undefined> {
  return (await db.query<{ tokenId: string; driverId: string; name: string }>(byHash, [tokenHash]))[0];
}

const revoke = sql(`update driver_tokens set revoked_at = coalesce(revoked_at, $2) where token_id = $1 returning ${COLUMNS}`);

/** Revokes a token (idempotent: a second revoke keeps the first time). */
export async function revokeDriverToken(db: Sql, tokenId: string, now: Date): Promise<DriverTokenRecord | undefined> {
  return (await db.query<DriverTokenRecord>(revoke, [tokenId, now]))[0];
}
