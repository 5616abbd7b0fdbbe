/** `outbox`: calls owed to the marketplace and partner webhook deliveries, and retrying them. */
import type { Command } from 'commander';
import { id, query, type Cli } from './api';
import { table } from './output';

interface OutboxOptions {
  status?: string;
  kind?: string;
  order?: string;
  partner?: string;
  endpoint?: string;
  event?: string;
  limit?: string;
}

export function registerOutbox(program: Command, { api, print }: Cli): void {
  const outbox = program.command('outbox').description('calls owed to the marketplace and partner webhook deliveries');
  outbox
    .command('list')
    .description('messages, newest first')
    .option('--status <status>', 'pending, delivered, failed, retrying (waiting after a failed attempt) or attention (failed or retrying)')
    .option('--kind <kind>', 'a marketplace call (confirm_order, …) or webhook')
    .option('--order <order_id>', "one order's messages")
    .option('--partner <partner_id>', "webhook deliveries to one partner's endpoints")
    .option('--endpoint <endpoint_id>', "one webhook endpoint's deliveries")
    .option('--event <event_id>', "one webhook event's deliveries")
    .option('--limit <n>', 'how many (1-500, the API defaults to 50)')
    .action(async (o: OutboxOptions) => {
      const params = { status: o.status, kind: o.kind, order_id: o.order, partner_id: o.partner, endpoint_id: o.endpoint, event_id: o.event, limit: o.limit };
      const r = await api('listOutbox', 'GET', `/outbox${query(params)}`);
      // One "for" column: the order of a marketplace call, or the endpoint and event of a webhook delivery.
      const rows = r.data.map((m) => ({ ...m, for: m.webhook ? `${m.webhook.endpoint_id} ${m.webhook.event_type} ${m.webhook.event_id}` : m.order_id }));
      print(r, () => table(rows, ['id', 'kind', 'for', 'status', 'attempts', 'max_attempts', 'last_status', 'last_error', 'next_attempt_at']));
    });
  outbox
    .command('retry <id>')
    .description('make a failed (or waiting) message due now')
    .action(async (m: string) => print(await api('retryOutboxMessage', 'POST', `/outbox/${id(m)}/retry`)));
}
