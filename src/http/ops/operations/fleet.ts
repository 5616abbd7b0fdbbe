import * as registry from '../../../domain/fleet/registry';
import * as shifts from '../../../domain/drivers/driver-shifts';
import { createPlan } from '../../../domain/dispatch/create-plan';
import { listPlans, readPlan } from '../../../domain/dispatch/read-plan';
import { applyPlan } from '../../../domain/dispatch/apply-plan';
import { assignJob as assign } from '../../../domain/fleet/assign-job';
import { completeJob as complete } from '../../../domain/fleet/complete-job';
import { getJob as get, listJobs as list } from '../../../domain/fleet/jobs';
import { jobForRole } from '../../../domain/fleet/job-privacy';
import { reportLocation } from '../../../domain/fleet/report-location';
import { issueDriverToken, revokeDriverToken as revokeToken } from '../../../domain/drivers/driver-tokens';
import { reportNoShow as noShow } from '../../../domain/fleet/report-no-show';
import { weakETag } from '../../documents';
import type { RequestContext } from '../../types';
import type { OpsHandler } from './types';

// Registering or withdrawing a vehicle changes what quoting may offer: once committed, this instance asks again at
// the next quote.
const forgetFleet = (ctx: RequestContext) => () => ctx.deps.fleet.forget();

export const createVehicle: OpsHandler<'createVehicle'> = async (call, ctx) => ({
  status: 201,
  body: await registry.registerVehicle(await ctx.tx(), call.body, ctx.deps.clock.now()),
  afterCommit: forgetFleet(ctx),
});

export const listVehicles: OpsHandler<'listVehicles'> = async (call, ctx) => ({
  status: 200,
  body: { data: await registry.listVehicles(ctx.sql, call.query) },
});

export const deactivateVehicle: OpsHandler<'deactivateVehicle'> = async (call, ctx) => ({
  status: 200,
  body: await registry.deactivateVehicle(await ctx.tx(), call.params.vehicle_id, ctx.deps.clock.now()),
  afterCommit: forgetFleet(ctx),
});

export const putVehicleEquipment: OpsHandler<'putVehicleEquipment'> = async (call, ctx) => ({
  status: 200,
  body: await registry.setEquipment(await ctx.tx(), call.params.vehicle_id, call.body),
  afterCommit: forgetFleet(ctx),
});

export const createDriver: OpsHandler<'createDriver'> = async (call, ctx) => ({
  status: 201,
  body: await registry.registerDriver(await ctx.tx(), call.body, ctx.deps.clock.now()),
});

export const listDrivers: OpsHandler<'listDrivers'> = async (call, ctx) => ({ status: 200, body: { data: await registry.listDrivers(ctx.sql, call.query) } });

export const deactivateDriver: OpsHandler<'deactivateDriver'> = async (call, ctx) => ({
  status: 200,
  body: await registry.deactivateDriver(await ctx.tx(), call.params.driver_id, ctx.deps.clock.now()),
});

export const listJobs: OpsHandler<'listJobs'> = async (call, ctx) => {
  const q = call.query;
  const data = await list(
    ctx.sql,
    { date: q.date, status: q.status, bookingRef: q.booking_ref, orderId: q.order_id, limit: Number(q.limit ?? 200) },
    ctx.deps.clock.now(),
  );
  const body = { data: data.map((j) => jobForRole(j, ctx.operator!.role)) };
  // Pollers (the console's dispatch board) send the ETag back: an unchanged list is a 304 with no body.
  const etag = weakETag(body);
  if (call.headers['if-none-match'] === etag) return { status: 304, headers: { ETag: etag } };
  return { status: 200, body, headers: { ETag: etag } };
};

export const getJob: OpsHandler<'getJob'> = async (call, ctx) => ({
  status: 200,
  body: jobForRole(await get(ctx.sql, call.params.job_id, ctx.deps.clock.now()), ctx.operator!.role),
});

export const createDriverToken: OpsHandler<'createDriverToken'> = async (call, ctx) => ({
  status: 201,
  body: await issueDriverToken(await ctx.tx(), call.params.driver_id, ctx.operator!, ctx.deps.clock.now()),
});

export const revokeDriverToken: OpsHandler<'revokeDriverToken'> = async (call, ctx) => ({
  status: 200,
  body: await revokeToken(await ctx.tx(), call.params.token_id, ctx.deps.clock.now()),
});

export const assignJob: OpsHandler<'assignJob'> = async (call, ctx) => ({
  status: 200,
  body: await assign(await ctx.tx(), call.params.job_id, call.body, ctx.deps.clock.now(), ctx.deps.marketplaceNotices),
});

export const reportJobLocation: OpsHandler<'reportJobLocation'> = async (call, ctx) => ({
  status: 202,
  body: await reportLocation(await ctx.tx(), call.params.job_id, call.body, ctx.deps.clock.now(), ctx.deps.marketplaceNotices),
});

export const reportNoShow: OpsHandler<'reportNoShow'> = async (call, ctx) => ({
  status: 200,
  body: await noShow(await ctx.tx(), call.params.job_id, call.body.note, ctx.deps.clock.now(), ctx.deps.marketplaceNotices),
});

export const completeJob: OpsHandler<'completeJob'> = async (call, ctx) => ({
  status: 200,
  body: await complete(await ctx.tx(), call.params.job_id, ctx.deps.clock.now()),
});

export const updateDriver: OpsHandler<'updateDriver'> = async (call, ctx) => ({
  status: 200,
  body: await registry.updateDriver(await ctx.tx(), call.params.driver_id, call.body),
});

export const getDriverShifts: OpsHandler<'getDriverShifts'> = async (call, ctx) => ({
  status: 200,
  body: await shifts.getShifts(ctx.sql, call.params.driver_id),
});

export const putDriverShifts: OpsHandler<'putDriverShifts'> = async (call, ctx) => ({
  status: 200,
  body: await shifts.setShifts(
    await ctx.tx(),
    call.params.driver_id,
    { weekly: call.body.weekly, exceptions: call.body.exceptions ?? [] },
    ctx.deps.clock.now(),
  ),
});

export const createDispatchPlan: OpsHandler<'createDispatchPlan'> = async (call, ctx) => ({
  status: 201,
  body: await createPlan(
    await ctx.tx(),
    { date: call.body.date, mode: call.body.mode ?? 'fill' },
    ctx.operator!.operatorId,
    ctx.deps.clock.now(),
    ctx.deps.config.dispatchLockHours,
  ),
});

export const getDispatchPlan: OpsHandler<'getDispatchPlan'> = async (call, ctx) => ({ status: 200, body: await readPlan(ctx.sql, call.params.plan_id) });

export const listDispatchPlans: OpsHandler<'listDispatchPlans'> = async (call, ctx) => ({
  status: 200,
  body: { data: await listPlans(ctx.sql, call.query.date, call.query.limit ?? 5) },
});

export const applyDispatchPlan: OpsHandler<'applyDispatchPlan'> = async (call, ctx) => ({
  status: 200,
  body: await applyPlan(await ctx.tx(), call.params.plan_id, ctx.deps.clock.now(), ctx.deps.marketplaceNotices, call.body?.job_ids),
});
