/**
 * The operator CLI: a thin client of the operator API (contracts/ops-v1.yaml). It parses arguments and prints
 * answers; the API validates everything and its errors are shown as they come.
 *
 *   npm run --silent operator -- <ping|account|partner|key|vocab|vehicle|driver|job|outbox|webhook|audit> [<verb>] … [--json]
 *
 * Each operation needs a role (viewer, dispatcher or admin; ops-v1.yaml's `x-required-role`): a token whose operator
 * has a lower one (or `metrics`, which reads GET /metrics only) gets the API's 403 `forbidden`, shown as it comes.
 *
 * Exit codes: 0 done, 1 the API (or the command line) refused, 2 the API could not be asked (no token, unreachable).
 *
 * This file wires the program; each command group is a module of ./operator/, with the one request helper
 * (./operator/api.ts) and the one output formatter (./operator/output.ts) they share.
 */
import { Command, CommanderError } from 'commander';
import { CliError, createApi, defaultBaseUrl, type Cli } from './operator/api';
import type { Io } from './operator/io';
import { createPrint } from './operator/output';
import { registerOperators } from './operator/operators';
import { registerPartners } from './operator/partners';
import { registerKeys } from './operator/keys';
import { registerFleet } from './operator/fleet';
import { registerJobs } from './operator/jobs';
import { registerOutbox } from './operator/outbox';
import { registerWebhooks } from './operator/webhooks';
import { registerAudit } from './operator/audit';

export type { Io } from './operator/io';

/** The command groups, in the order the help lists them. */
const GROUPS = [registerOperators, registerPartners, registerKeys, registerFleet, registerJobs, registerOutbox, registerWebhooks, registerAudit];

export async function run(argv: string[], io: Io): Promise<number> {
  const program = new Command('operator')
    .description('Operator CLI: a client of the operator API (/ops/v1).')
    .option(
      '--base-url <url>',
      'where the service runs (else OPERATOR_BASE_URL, OPS_LISTEN, PUBLIC_BASE_URL, 127.0.0.1 at PORT, where a local npm start listens, port 3000)',
      defaultBaseUrl(io),
    )
    .option('--token <token>', 'operator token (default: $OPERATOR_TOKEN, else ${DATA_DIR:-./data}/operator-token)')
    .option('--json', "print the API's JSON document as is")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(add --help for usage)');
  const cli: Cli = { api: createApi(program, io), print: createPrint(program, io) };
  for (const register of GROUPS) register(program, cli);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    // Commander has already printed its message (or the help); only its exit code is left to pass on.
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError) {
      io.stderr.write(`${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

if (require.main === module) {
  run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
    (code) => {
      // exitCode rather than exit(): lets a piped stdout drain.
      process.exitCode = code;
    },
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
