import { listAudit as list } from '../../../domain/audit/audit-log';
import type { OpsHandler, OpsQuery } from './types';

export const listAudit: OpsHandler<'listAudit'> = async (c, ctx) => {
  const q = c.request.query as unknown as OpsQuery<'listAudit'>;
  const data = await list(ctx.trx, {
    limit: Number(q.limit ?? 50),
    path: q.path,
    partnerId: q.partner_id,
    requestId: q.request_id,
    surface: q.surface,
  });
  return { status: 200, body: { data } };
};
