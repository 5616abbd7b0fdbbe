import { retrying } from '../client';
import { flowRecorder, type Check, type Flow } from './flow';
import { airportTransfer, declineJourneys } from './journeys';
import type { QuoteRequest, RetriedResult, QuoteResponse } from '../client';

type Reason = NonNullable<QuoteResponse['declined']>['reason'];

function expectDecline(c: Check, r: RetriedResult<QuoteResponse>, reason: Reason) {
  c.equal(r.status, 200, 'status (a decline is an answer, not an error)');
  c.equal(r.data?.offers, [], 'offers');
  c.equal(r.data?.declined?.reason, reason, 'declined.reason');
  c.expect(typeof r.data?.declined?.message === 'string', 'declined.message is a string');
  c.detail(`declined ${reason}: ${r.data!.declined!.message}`);
}

/** Each decline a partner must treat as a normal answer: 200, no offers, a reason to branch on. */
export const declinesFlow: Flow = async (client, ctx) => {
  const flow = flowRecorder('declines', ctx);
  const api = retrying(client, ctx.retryPolicy);
  const cases: Array<[Reason, string, QuoteRequest]> = [
    ['short_notice', 'a pickup under 24 hours ahead declines short_notice (200, no offers)', declineJourneys.short_notice(ctx)],
    ['route_unknown', 'an unknown place name declines route_unknown (200, no offers)', declineJourneys.route_unknown(ctx)],
    ['no_vehicle', 'a party of 21 adults declines no_vehicle (200, no offers)', declineJourneys.no_vehicle(ctx)],
    ['below_min_rate', 'a ~300 m journey declines below_min_rate (200, no offers)', declineJourneys.below_min_rate(ctx)],
  ];
  for (const [reason, title, journey] of cases) {
    await flow.check(`decline.${reason}`, title, async (c: Check) => expectDecline(c, c.record(await api.createQuote(journey)), reason));
  }
  await flow.check('decline.partner_paused', 'a paused account declines partner_paused (200, no offers)', async (c: Check) => {
    if (ctx.pausedKey) {
      // An account an operator paused: its quotes must decline.
      const paused = retrying(ctx.clientFor(ctx.pausedKey), ctx.retryPolicy);
      expectDecline(c, c.record(await paused.createQuote(airportTransfer(ctx))), 'partner_paused');
      return;
    }
    // Otherwise pause our own sandbox with the test helper, quote, and always resume.
    const pause = c.record(await api.pauseSandbox());
    c.equal(pause.status, 200, 'status of POST /test_helpers/account/pause');
    try {
      expectDecline(c, c.record(await api.createQuote(airportTransfer(ctx))), 'partner_paused');
    } finally {
      c.record(await api.resumeSandbox());
    }
  });
  return flow.result();
};
