import { eraseTraveller } from '../../../domain/privacy/erase-traveller';
import { exportSubject as exported } from '../../../domain/privacy/export-subject';
import { FORGOTTEN } from '../../../domain/kernel/data-keys';
import { invalidRequest } from '../../../shared/errors';
import type { OpsHandler } from './types';

const query = (q: { email?: string; phone?: string; booking_ref?: string }) => {
  if (!q.email && !q.phone && !q.booking_ref)
    throw invalidRequest('Say whose data: email, phone or booking_ref.', [{ field: 'email', message: 'is required without phone or booking_ref' }]);
  return { email: q.email, phone: q.phone, bookingRef: q.booking_ref };
};

export const createErasure: OpsHandler<'createErasure'> = async (call, ctx) => {
  const { receipt, subjects } = await eraseTraveller(await ctx.tx(), query(call.body), ctx.deps.clock.now());
  return {
    status: 200,
    body: receipt,
    // The request names the traveller it erases: its audit row keeps none of it.
    subject: FORGOTTEN,
    afterCommit: () => ctx.deps.dataKeys.erased(subjects),
  };
};

export const exportSubject: OpsHandler<'exportSubject'> = async (call, ctx) => ({
  status: 200,
  body: await exported(ctx.sql, ctx.deps.dataKeys, query(call.query)),
});
