/** `audit`: the audit log. */
import type { Command } from 'commander';
import { query, type Cli } from './api';
import { table } from './output';

interface AuditOptions {
  limit?: string;
  path?: string;
  partner?: string;
  requestId?: string;
  surface?: string;
  direction?: string;
  from?: string;
  to?: string;
  beforeId?: string;
}

export function registerAudit(program: Command, { api, print }: Cli): void {
  program
    .command('audit')
    .description('the audit log')
    .command('list')
    .description('the latest audit entries, newest first (secrets redacted)')
    .option('--limit <n>', 'how many (1-500, the API defaults to 50)')
    .option('--path <prefix>', 'entries whose path starts with this')
    .option('--partner <partner_id>', "one partner's entries")
    .option('--request-id <id>', 'one request')
    .option('--surface <surface>', 'transfers, console, ops, ops-console, marketplace, webhooks or none')
    .option('--direction <direction>', 'inbound (requests we answered) or outbound (calls we made)')
    .option('--from <time>', 'entries at or after this time (ISO 8601)')
    .option('--to <time>', 'entries before this time (ISO 8601)')
    .option('--before-id <id>', 'the next page: entries older than this id')
    .action(async (o: AuditOptions) => {
      const params = {
        limit: o.limit,
        path: o.path,
        partner_id: o.partner,
        request_id: o.requestId,
        surface: o.surface,
        direction: o.direction,
        from: o.from,
        to: o.to,
        before_id: o.beforeId,
      };
      const r = await api('listAudit', 'GET', `/audit${query(params)}`);
      print(r, () => table(r.data, ['id', 'at', 'surface', 'direction', 'method', 'path', 'status', 'partner_id', 'request_id', 'duration_ms']));
    });
}
