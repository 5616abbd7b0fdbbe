/** `key`: partners' API keys. */
import type { Command } from 'commander';
import { environment, id, type Cli } from './api';
import { fields, table } from './output';

export function registerKeys(program: Command, { api, print }: Cli): void {
  const key = program.command('key').description('partner API keys');
  key
    .command('create <partner_id>')
    .description('issue an API key (shown this once)')
    .requiredOption('--env <sandbox|production|test|live>', 'the environment the key reaches (test = sandbox, live = production)')
    .action(async (p: string, o: { env: string }) => {
      const k = await api('createKey', 'POST', `/partners/${id(p)}/keys`, { env: environment(o.env) });
      const { key: secret, ...info } = k;
      print(k, () => `${fields(info)}\n    ${secret}\n\nStore this key now: it is shown once and cannot be retrieved again.\n`);
    });
  key
    .command('list <partner_id>')
    .description("list a partner's keys (never their secrets)")
    .action(async (p: string) => {
      const r = await api('listKeys', 'GET', `/partners/${id(p)}/keys`);
      print(r, () => table(r.data, ['key_id', 'env', 'prefix', 'created_at', 'revoked_at', 'last_used_at']));
    });
  key
    .command('revoke <key_id>')
    .description('revoke a key (effective on its next request)')
    .action(async (k: string) => print(await api('revokeKey', 'POST', `/keys/${id(k)}/revoke`)));
}
