/** `partner`: partner accounts, their pause, rate limits, AI agent policy, terms and statements. */
import type { Command } from 'commander';
import { environment, id, query, type Body, type Cli, type Schemas } from './api';
import { fields, table } from './output';
import { registerPartnerAgents } from './agents';

export function registerPartners(program: Command, cli: Cli): void {
  const { api, print } = cli;
  const partner = program.command('partner').description('partner accounts');
  partner
    .command('create <name>')
    .description('create a partner account')
    .option('--currency <USD|EUR|LKR>', 'billing currency (the API defaults to USD)')
    .action(async (name: string, o: { currency?: string }) => {
      // Not checked here: the API's invalid_request names the field.
      print(await api('createPartner', 'POST', '/partners', { name, currency: o.currency as Schemas['Currency'] | undefined }));
    });
  partner
    .command('list')
    .description('list partners, newest first')
    .action(async () => {
      const r = await api('listPartners', 'GET', '/partners');
      print(r, () => table(r.data, ['partner_id', 'name', 'currency', 'paused', 'created_at']));
    });
  partner
    .command('show <partner_id>')
    .description('show a partner')
    .action(async (p: string) => print(await api('getPartner', 'GET', `/partners/${id(p)}`)));
  partner
    .command('pause <partner_id>')
    .description('pause quoting (quotes decline with partner_paused)')
    .action(async (p: string) => print(await api('pausePartner', 'POST', `/partners/${id(p)}/pause`)));
  partner
    .command('resume <partner_id>')
    .description('resume quoting')
    .action(async (p: string) => print(await api('resumePartner', 'POST', `/partners/${id(p)}/resume`)));
  partner
    .command('rate-limit <partner_id>')
    .description("set (--rps, --burst) or remove (--none) the partner's rate limit in one environment")
    .requiredOption('--env <sandbox|production|test|live>', 'the environment it applies to (test = sandbox, live = production)')
    .option('--rps <n>', 'requests a second (0.01 to 100000)')
    .option('--burst <n>', 'the most requests at once (default: twice the rate, at least 1)')
    .option('--none', 'remove the limit (no limit is the default)')
    .action((p: string, o: RateLimitOptions, cmd: Command) => setRateLimit(cli, p, o, cmd));
  registerPartnerAgents(partner, cli);
  partner
    .command('terms <partner_id>')
    .description("show the partner's terms, or make a new version of them (options not given stay as they are)")
    .option('--fee <hours:percent>', 'a cancellation fee of percent from hours before pickup (repeat it; --fee none: free until pickup)', collect, [])
    // Not --no-show: commander reads any --no-<name> as the negation of --<name>.
    .option('--noshow <percent>', 'what a no-show is billed, in percent of the price')
    .option('--adjust <percent>', "the partner's rate against the rate card (-10: 10 % below)")
    .action((p: string, o: TermsOptions, cmd: Command) => terms(cli, p, o, cmd));
  partner
    .command('statement <partner_id>')
    .description('what we bill the partner for the pickups of a range of days (Sri Lanka dates, both included)')
    .requiredOption('--env <sandbox|production|test|live>', 'the environment')
    .requiredOption('--from <YYYY-MM-DD>', 'the first pickup date')
    .requiredOption('--to <YYYY-MM-DD>', 'the last pickup date (at most 92 days on)')
    .action(async (p: string, o: { env: string; from: string; to: string }) => {
      const r = await api('getPartnerStatement', 'GET', `/partners/${id(p)}/statements${query({ env: environment(o.env), from: o.from, to: o.to })}`);
      print(r, () => {
        const lines = table(r.lines, ['booking_ref', 'partner_reference', 'pickup_datetime', 'status', 'price', 'cancellation_fee', 'amount_due', 'final']);
        return `${lines}\n${fields({ currency: r.currency, bookings: r.totals.bookings, amount_due: r.totals.amount_due, final_amount_due: r.totals.final_amount_due })}`;
      });
    });
}

const collect = (value: string, previous: string[]) => [...previous, value];

interface TermsOptions {
  fee: string[];
  noshow?: string;
  adjust?: string;
}

async function terms({ api, print }: Cli, p: string, o: TermsOptions, cmd: Command): Promise<void> {
  const show = (t: Schemas['PartnerTerms']) =>
    print(t, () =>
      fields({
        partner_id: t.partner_id,
        version: t.version,
        effective_from: t.effective_from,
        cancellation_fees: t.cancellation_fees.length
          ? t.cancellation_fees.map((f) => `${f.percent} % from ${f.hours_before} h before pickup`).join('; ')
          : 'none',
        no_show: `${t.no_show_percent} %`,
        price_adjustment: `${t.price_adjustment_percent} %`,
      }),
    );
  const current = await api('getPartnerTerms', 'GET', `/partners/${id(p)}/terms`);
  if (!o.fee.length && o.noshow === undefined && o.adjust === undefined) return show(current);
  const number = (flag: string, v: string) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n)) cmd.error(`error: ${flag} must be a number, not "${v}"`);
    return n;
  };
  const fees = o.fee.includes('none')
    ? []
    : o.fee.map((f) => {
        const [hours, percent] = f.split(':');
        if (percent === undefined) cmd.error(`error: --fee takes hours:percent (e.g. 12:50), not "${f}"`);
        return { hours_before: number('--fee hours', hours), percent: number('--fee percent', percent) };
      });
  const body: Body<'putPartnerTerms'> = {
    cancellation_fees: o.fee.length ? fees : current.cancellation_fees,
    no_show_percent: o.noshow !== undefined ? number('--noshow', o.noshow) : current.no_show_percent,
    price_adjustment_percent: o.adjust !== undefined ? number('--adjust', o.adjust) : current.price_adjustment_percent,
  };
  show(await api('putPartnerTerms', 'PUT', `/partners/${id(p)}/terms`, body));
}

interface RateLimitOptions {
  env: string;
  rps?: string;
  burst?: string;
  none?: boolean;
}

async function setRateLimit({ api, print }: Cli, p: string, o: RateLimitOptions, cmd: Command): Promise<void> {
  if (o.none ? o.rps !== undefined || o.burst !== undefined : o.rps === undefined) cmd.error('error: give --rps <n> (and --burst <n> if wanted), or --none');
  // A word that is not a number would be sent as null (no limit): refused here instead.
  const number = (flag: string, v: string) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n)) cmd.error(`error: ${flag} must be a number, not "${v}"`);
    return n;
  };
  const body: Body<'putPartnerRateLimit'> = { env: environment(o.env), requests_per_second: o.none ? null : number('--rps', o.rps!) };
  if (o.burst !== undefined) body.burst = number('--burst', o.burst);
  const r = await api('putPartnerRateLimit', 'PUT', `/partners/${id(p)}/rate-limit`, body);
  const limit = (l: Schemas['RateLimit']) => (l ? `${l.requests_per_second} requests/s, burst ${l.burst}` : 'none');
  print(r, () => fields({ partner_id: r.partner_id, name: r.name, sandbox: limit(r.rate_limits.sandbox), production: limit(r.rate_limits.production) }));
}
