/** `partner`: partner accounts, their pause and their rate limits. */
import type { Command } from 'commander';
import { environment, id, type Body, type Cli, type Schemas } from './api';
import { fields, table } from './output';

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
