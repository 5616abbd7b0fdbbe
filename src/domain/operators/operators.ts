import { createHash } from 'node:crypto';
import type { Sql } from '../../data/database';
import * as operators from '../../data/repositories/operators-repository';
import { keySecret, prefixedId } from '../../shared/ids';
import { notFound } from '../../shared/errors';

export type OperatorRole = operators.OperatorRole;

/** OPERATOR_TOKEN's operator: the bootstrap admin, with no row of its own. */
export const BOOTSTRAP_OPERATOR = { operatorId: 'bootstrap', name: 'Bootstrap admin (OPERATOR_TOKEN)', role: 'admin' as const };

/**
 * What each role may do, by rank: a role may do everything a lower one may. `metrics` is the lowest: only the
 * operations that name it (GET /metrics, the Prometheus scraper's), nothing of the operator API.
 */
const RANK: Record<OperatorRole, number> = { metrics: 0, viewer: 1, dispatcher: 2, admin: 3 };
export const mayAct = (role: OperatorRole, required: OperatorRole): boolean => RANK[role] >= RANK[required];

export const hashOperatorToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export interface OperatorView {
  operator_id: string;
  name: string;
  role: OperatorRole;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
}

const toView = (o: operators.OperatorRecord): OperatorView => ({
  operator_id: o.operatorId,
  name: o.name,
  role: o.role,
  created_at: new Date(o.createdAt).toISOString(),
  created_by: o.createdBy,
  revoked_at: o.revokedAt ? new Date(o.revokedAt).toISOString() : null,
});

/** Names an operator and issues its token: `op_` and 40 base62 characters, returned this once, kept as its hash. */
export async function createOperator(tx: Sql, input: { name: string; role: OperatorRole }, by: string, now: Date): Promise<OperatorView & { token: string }> {
  const token = `op_${keySecret()}`;
  const row = await operators.insertOperator(tx, {
    operatorId: prefixedId('opr'),
    name: input.name.trim() || input.name,
    role: input.role,
    tokenHash: hashOperatorToken(token),
    createdAt: now,
    createdBy: by,
  });
  return { ...toView(row), token };
}

export async function listOperators(db: Sql): Promise<OperatorView[]> {
  return (await operators.listOperators(db)).map(toView);
}

export async function revokeOperator(tx: Sql, operatorId: string, now: Date): Promise<OperatorView> {
  const row = await operators.revokeOperator(tx, operatorId, now);
  if (!row) throw notFound(`No operator ${operatorId}.`, { operator_id: operatorId });
  return toView(row);
}
