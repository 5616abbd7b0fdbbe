import { sql, type Sql } from '../database';
import type { Write } from '../write';

export type OperatorRole = 'admin' | 'dispatcher' | 'viewer' | 'metrics';

export interface OperatorRecord {
  operatorId: string;
  name: string;
  role: OperatorRole;
  createdAt: Date;
  createdBy: string;
  revokedAt: Date | null;
}

const COLUMNS = `operator_id as "operatorId", name, role, created_at as "createdAt", created_by as "createdBy", revoked_at as "revokedAt"`;

const insert = sql(`insert into operators (operator_id, name, role, token_hash, created_at, created_by) values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`);

export async function insertOperator(db: Sql, o: Omit<OperatorRecord, 'revokedAt'> & { tokenHash: string }): Promise<OperatorRecord> {
  return (await db.query<OperatorRecord>(insert, [o.operatorId, o.name, o.role, o.tokenHash, o.createdAt, o.createdBy]))[0];
}

const list = sql(`select ${COLUMNS} from operators order by created_at desc, operator_id`);

export async function listOperators(db: Sql): Promise<OperatorRecord[]> {
  return db.query<OperatorRecord>(list);
}

const byHash = sql(`select ${COLUMNS} from operators where token_hash = $1 and revoked_at is null`);

/** The unrevoked operator whose token hashes to `tokenHash`. */
export async function findOperatorByTokenHash(db: Sql, tokenHash: string): Promise<OperatorRecord | undefined> {
  return (await db.query<OperatorRecord>(byHash, [tokenHash]))[0];
}

const revoke = sql(`
  with revoked as (update operators set revoked_at = coalesce(revoked_at, $2) where operator_id = $1 returning ${COLUMNS})
  select * from revoked`);

/** Revokes an operator (idempotent: a second revoke keeps the first time). */
export async function revokeOperator(db: Sql, operatorId: string, now: Date): Promise<OperatorRecord | undefined> {
  return (await db.query<OperatorRecord>(revoke, [operatorId, now]))[0];
}

/**
 * What a named operator's request asserts in its final statement: the operator still unrevoked (else SQLSTATE
 * LT001, as for partner keys: nothing is written and the request runs again, now refused).
 */
export const operatorStillValid = (operatorId: string): Write => ({
  ctes: [],
  params: [operatorId],
  asserts: ['assert_operator_active($1::text)'],
});
