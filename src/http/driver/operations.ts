import type { operations as Ops } from '../../generated/driver-v1';
import type { BodyOf, PathParamsOf, QueryOf, ReplyOf } from '../contract-types';
import type { OperationCall, RequestContext } from '../types';
import { getDriverJob as getJob, listDriverJobs as listJobs } from '../../domain/ride/driver-jobs';
import { moveRide } from '../../domain/ride/move-ride';
import { reportDriverPosition } from '../../domain/ride/report-position';
import { formatLocal } from '../../domain/kernel/sri-lanka-time';

const sriLankaToday = (now: Date) => formatLocal(now).slice(0, 10);

type DriverCall<O extends keyof Ops> = OperationCall<BodyOf<Ops, O>, PathParamsOf<Ops, O>, QueryOf<Ops, O>>;
/** The surface dispatches only after authenticating the driver's token: `driver` is set. */
type DriverContext = RequestContext & { driver: NonNullable<RequestContext['driver']> };
type DriverHandler<O extends keyof Ops> = (call: DriverCall<O>, ctx: DriverContext) => Promise<ReplyOf<Ops, O>>;

const getDriverMe: DriverHandler<'getDriverMe'> = async (_call, ctx) => {
  const now = ctx.deps.clock.now();
  const { driverId, name, tokenId } = ctx.driver;
  return { status: 200, body: { driver_id: driverId, name, token_id: tokenId, time: now.toISOString(), today: sriLankaToday(now) } };
};

const listDriverJobs: DriverHandler<'listDriverJobs'> = async (call, ctx) => {
  const now = ctx.deps.clock.now();
  const date = call.query.date ?? sriLankaToday(now);
  return { status: 200, body: { date, data: await listJobs(ctx.sql, ctx.driver.driverId, date, now) } };
};

const getDriverJob: DriverHandler<'getDriverJob'> = async (call, ctx) => ({
  status: 200,
  body: await getJob(ctx.sql, ctx.driver.driverId, call.params.job_id, ctx.deps.clock.now()),
});

const setDriverJobStatus: DriverHandler<'setDriverJobStatus'> = async (call, ctx) => ({
  status: 200,
  body: await moveRide(await ctx.tx(), ctx.driver.driverId, call.params.job_id, call.body, ctx.deps.clock.now(), ctx.deps.marketplaceNotices),
});

const postDriverLocation: DriverHandler<'postDriverLocation'> = async (call, ctx) => ({
  status: 202,
  body: await reportDriverPosition(await ctx.tx(), ctx.driver.driverId, call.body, ctx.deps.clock.now(), ctx.deps.marketplaceNotices),
});

/** operationId → handler. */
export const driverOperations = { getDriverMe, listDriverJobs, getDriverJob, setDriverJobStatus, postDriverLocation };
