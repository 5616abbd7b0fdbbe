import type { TransfersHandler } from './types';

export const getPing: TransfersHandler<'getPing'> = async (_call, ctx) => ({
  status: 200,
  body: { ok: true, partner: ctx.partner.name, time: ctx.deps.clock.now().toISOString() },
});
