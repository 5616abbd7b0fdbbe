import { formatLocal } from '../../../domain/kernel/sri-lanka-time';
import type { OpsHandler } from './types';

/** The token is right: the service's time, and today's date in Sri Lanka (the console's "today"). */
export const getOpsPing: OpsHandler<'getOpsPing'> = async (_call, ctx) => {
  const now = ctx.deps.clock.now();
  return { status: 200, body: { ok: true, time: now.toISOString(), today: formatLocal(now).slice(0, 10) } };
};
