/** `partner agents`: what the partner's AI agents may do through the MCP server (its agent policy). */
import type { Command } from 'commander';
import { id, type Body, type Cli } from './api';
import { fields } from './output';

interface AgentOptions {
  enabled?: string;
  live?: string;
  maxBooking?: string;
  maxDaily?: string;
}

export function registerPartnerAgents(partner: Command, cli: Cli): void {
  partner
    .command('agents <partner_id>')
    .description("show the partner's AI agent policy and today's amounts, or change it (options not given stay as they are)")
    .option('--enabled <yes|no>', 'agents may use the MCP server at all')
    .option('--live <yes|no>', 'agents may book in production (the sandbox is open while enabled)')
    .option('--max-booking <amount|none>', "the most one booking may cost, in the partner's currency")
    .option('--max-daily <amount|none>', 'the most agents may book per Sri Lanka day and environment')
    .action((p: string, o: AgentOptions, cmd: Command) => agents(cli, p, o, cmd));
}

async function agents({ api, print }: Cli, p: string, o: AgentOptions, cmd: Command): Promise<void> {
  const path = `/partners/${id(p)}/agent-policy`;
  let r = await api('getAgentPolicy', 'GET', path);
  if (Object.values(o).some((v) => v !== undefined)) {
    const yes = (flag: string, v: string | undefined, current: boolean) => {
      if (v === undefined) return current;
      if (v !== 'yes' && v !== 'no') cmd.error(`error: ${flag} takes yes or no, not "${v}"`);
      return v === 'yes';
    };
    const amount = (flag: string, v: string | undefined, current: number | null) => {
      if (v === undefined) return current;
      if (v === 'none') return null;
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n)) cmd.error(`error: ${flag} takes an amount or none, not "${v}"`);
      return n;
    };
    const body: Body<'putAgentPolicy'> = {
      enabled: yes('--enabled', o.enabled, r.enabled),
      live_bookings: yes('--live', o.live, r.live_bookings),
      max_booking_amount: amount('--max-booking', o.maxBooking, r.max_booking_amount),
      max_daily_amount: amount('--max-daily', o.maxDaily, r.max_daily_amount),
    };
    r = await api('putAgentPolicy', 'PUT', path, body);
  }
  const limit = (v: number | null) => (v === null ? 'none' : `${v} ${r.currency}`);
  const day = (d: { amount: number; bookings: number }) => `${d.amount} ${r.currency} in ${d.bookings} bookings`;
  print(r, () =>
    fields({
      partner_id: r.partner_id,
      agents: r.enabled ? 'on' : 'off',
      production_bookings: r.live_bookings ? 'on' : 'off',
      max_booking: limit(r.max_booking_amount),
      max_daily: limit(r.max_daily_amount),
      [`booked_today (${r.today}), sandbox`]: day(r.booked_today.sandbox),
      [`booked_today (${r.today}), production`]: day(r.booked_today.production),
      updated: r.updated_at ? `${r.updated_at} by ${r.updated_by}` : 'never (the defaults)',
    }),
  );
}
