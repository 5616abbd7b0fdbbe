import { openSealed } from '../../../domain/kernel/seal-personal';
import { getAuditEntry as getOne, listAudit as list } from '../../../data/repositories/audit-reads';
import { notFound } from '../../../shared/errors';
import type { OpsHandler } from './types';

export const listAudit: OpsHandler<'listAudit'> = async (call, ctx) => {
  const q = call.query;
  const { data, next } = await list(ctx.sql, {
    limit: Number(q.limit ?? 50),
    path: q.path,
    partnerId: q.partner_id,
    requestId: q.request_id,
    operatorId: q.operator_id,
    surface: q.surface,
    direction: q.direction,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    beforeId: q.before_id,
  });
  // Travellers' details as they were sent, unless erased since (see domain/kernel/seal-personal).
  const opened = await openSealed(ctx.deps.dataKeys, ctx.sql, data);
  return { status: 200, body: { data: opened, next_before_id: next } };
};

export const getAuditEntry: OpsHandler<'getAuditEntry'> = async (call, ctx) => {
  const entry = await getOne(ctx.sql, call.params.audit_id);
  if (!entry) throw notFound(`No audit entry ${call.params.audit_id}.`, { audit_id: call.params.audit_id });
  const [opened] = await openSealed(ctx.deps.dataKeys, ctx.sql, [entry]);
  return { status: 200, body: opened };
};
