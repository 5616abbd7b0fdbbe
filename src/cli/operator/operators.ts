/** `ping` and `account`: the token in use, and the named operators (admin). */
import type { Command } from 'commander';
import { id, type Cli, type Schemas } from './api';
import { fields, table } from './output';

export function registerOperators(program: Command, { api, print }: Cli): void {
  program
    .command('ping')
    .description("check the token; the service's time and today's date in Sri Lanka")
    .action(async () => print(await api('getOpsPing', 'GET', '/ping')));

  const account = program.command('account').description('named operators, each with a role and a token of its own (admin)');
  account
    .command('create')
    .description('name an operator and issue its token (shown this once)')
    .requiredOption('--name <name>', 'the operator\'s name, e.g. "Nimali Perera"')
    .requiredOption(
      '--role <metrics|viewer|dispatcher|admin>',
      'metrics (GET /metrics only: the Prometheus scraper), viewer (reads; passengers masked), dispatcher (also the fleet, jobs, retries, the audit log) or admin (everything)',
    )
    .action(async (o: { name: string; role: string }) => {
      // The role is not checked here: the API's invalid_request names the field.
      const created = await api('createOperator', 'POST', '/operators', { name: o.name, role: o.role as Schemas['OperatorRole'] });
      const { token, ...info } = created;
      print(
        created,
        () =>
          `${fields(info)}\n    ${token}\n\nStore this token now: it is shown once and cannot be retrieved again. Give it to ${info.name} over a secure channel.\n`,
      );
    });
  account
    .command('list')
    .description('the named operators, newest first (never their tokens)')
    .action(async () => {
      const r = await api('listOperators', 'GET', '/operators');
      print(r, () => table(r.data, ['operator_id', 'name', 'role', 'created_at', 'created_by', 'revoked_at']));
    });
  account
    .command('revoke <operator_id>')
    .description("revoke an operator's token (its next request is refused)")
    .action(async (o: string) => print(await api('revokeOperator', 'POST', `/operators/${id(o)}/revoke`)));
}
