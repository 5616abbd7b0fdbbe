import { setSandboxFlight as setFlight } from '../../../domain/flights/sandbox-flights';
import type { TransfersHandler } from './types';

/** Sandbox test helper: what the simulated flight-status provider answers, applied to the partner's sandbox bookings at once. */
export const setSandboxFlight: TransfersHandler<'setSandboxFlight'> = async (call, ctx) => ({
  status: 200,
  body: await setFlight(await ctx.tx(), { partnerId: ctx.partner.partnerId, env: ctx.env }, call.body, ctx.deps.clock.now()),
});
