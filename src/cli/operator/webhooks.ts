/** `webhook`: partners' webhook endpoints, and disabling or enabling them. */
import type { Command } from 'commander';
import { id, query, type Cli } from './api';
import { table } from './output';

export function registerWebhooks(program: Command, { api, print }: Cli): void {
  const webhook = program.command('webhook').description("partners' webhook endpoints");
  webhook
    .command('list')
    .description('endpoints, newest first (never their secrets)')
    .option('--partner <partner_id>', "one partner's endpoints")
    .option('--env <sandbox|production>', 'one environment')
    .option('--status <status>', 'enabled, disabled (by an operator, or after failing for 3 days) or deleted')
    .option('--limit <n>', 'how many (1-500, the API defaults to 50)')
    .action(async (o: { partner?: string; env?: string; status?: string; limit?: string }) => {
      const r = await api('listWebhookEndpoints', 'GET', `/webhook_endpoints${query({ partner_id: o.partner, env: o.env, status: o.status, limit: o.limit })}`);
      print(r, () => table(r.data, ['endpoint_id', 'partner_id', 'env', 'status', 'url', 'failing_since', 'disabled_reason']));
    });
  webhook
    .command('disable <endpoint_id>')
    .description('stop deliveries to an endpoint (waiting ones fail)')
    .option('--reason <text>', 'why, shown to the partner')
    .action(async (e: string, o: { reason?: string }) =>
      print(await api('disableWebhookEndpoint', 'POST', `/webhook_endpoints/${id(e)}/disable`, o.reason ? { reason: o.reason } : undefined)),
    );
  webhook
    .command('enable <endpoint_id>')
    .description('resume deliveries to an endpoint (retry failed ones with outbox retry)')
    .action(async (e: string) => print(await api('enableWebhookEndpoint', 'POST', `/webhook_endpoints/${id(e)}/enable`)));
}
