/**
 * The operator CLI: a thin client of the operator API (contracts/ops-v1.yaml). It parses arguments and prints
 * answers; the API validates everything and its errors are shown as they come.
 *
 *   npm run --silent operator -- <partner|key|vocab|audit> <verb> … [--json]
 *
 * Exit codes: 0 done, 1 the API (or the command line) refused, 2 the API could not be asked (no token, unreachable).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import type { components, operations as Ops } from '../generated/ops-v1';

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** The success body (200 or 201) of an operation. */
type Ok<O extends keyof Ops> = JsonOf<Ops[O]['responses'][Extract<keyof Ops[O]['responses'], 200 | 201>]>;
type Body<O extends keyof Ops> = JsonOf<NonNullable<Ops[O]['requestBody']>>;
type Schemas = components['schemas'];
type ApiError = Schemas['Error']['error'];

export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
}

/** A failure already worded for the operator. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

export async function run(argv: string[], io: Io): Promise<number> {
  // An empty variable means unset, as in src/config/env.ts.
  const env = (name: string) => io.env[name] || undefined;
  const defaultBaseUrl = env('OPERATOR_BASE_URL') ?? env('PUBLIC_BASE_URL') ?? `http://localhost:${env('PORT') ?? 3000}`;
  const program = new Command('operator')
    .description('Operator CLI: a client of the operator API (/ops/v1).')
    .option('--base-url <url>', 'where the service runs', defaultBaseUrl)
    .option('--token <token>', 'operator token (default: $OPERATOR_TOKEN, else ${DATA_DIR:-./data}/operator-token)')
    .option('--json', "print the API's JSON document as is")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(add --help for usage)');

  const connection = () => {
    const opts = program.opts<{ baseUrl: string; token?: string }>();
    const baseUrl = opts.baseUrl.replace(/\/+$/, '');
    if (!URL.canParse(baseUrl)) throw new CliError(`invalid base URL "${opts.baseUrl}"`, 2);
    const tokenFile = path.resolve(env('DATA_DIR') ?? './data', 'operator-token');
    const fromFile = () => (fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim() : undefined);
    const token = opts.token || env('OPERATOR_TOKEN') || fromFile();
    if (!token) {
      const hint = `pass --token, set OPERATOR_TOKEN, or start the service once so it writes ${tokenFile}`;
      throw new CliError(`no operator token: ${hint}`, 2);
    }
    return { baseUrl, token };
  };

  /** The one request helper: the operation id only types the body and the answer. */
  const api = async <O extends keyof Ops>(_op: O, method: string, apiPath: string, body?: Body<O>): Promise<Ok<O>> => {
    const { baseUrl, token } = connection();
    const url = `${baseUrl}/ops/v1${apiPath}`;
    // The user agent tells CLI requests apart in the audit log.
    const headers: Record<string, string> = {
      Authorization: `Bearer ${token}`,
      Accept: 'application/json',
      'User-Agent': 'lanka-transfers-operator-cli',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let status: number, text: string;
    try {
      const res = await (io.fetch ?? fetch)(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      status = res.status;
      text = await res.text();
    } catch (err) {
      const hint = 'is the service running? Point --base-url or OPERATOR_BASE_URL at it.';
      throw new CliError(`cannot reach the operator API at ${baseUrl} (${reason(err)}): ${hint}`, 2);
    }
    const json = parseJson(text);
    if (status < 300 && json !== undefined) return json as Ok<O>;
    const error = (json as { error?: ApiError } | undefined)?.error;
    if (error?.code) throw new CliError(describeError(error), 1);
    throw new CliError(`unexpected answer from ${method} ${url}: HTTP ${status} ${text.slice(0, 200)}`, 1);
  };

  /** The one output formatter: the API's JSON with --json, else the human view (key: value lines by default). */
  const print = (value: object, human: () => string = () => fields(value)) => {
    io.stdout.write(program.opts().json ? `${JSON.stringify(value, null, 2)}\n` : human());
  };
  const id = encodeURIComponent;

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

  const key = program.command('key').description('partner API keys');
  key
    .command('create <partner_id>')
    .description('issue an API key (shown this once)')
    .requiredOption('--env <sandbox|production>', 'the environment the key reaches')
    .action(async (p: string, o: { env: string }) => {
      const k = await api('createKey', 'POST', `/partners/${id(p)}/keys`, { env: o.env as Schemas['Env'] });
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

  const vocab = program.command('vocab').description("a partner's vehicle codes, mapped to fleet vehicles");
  vocab
    .command('set <partner_id> <code> <fleet_code>')
    .description('map a partner vehicle code to a fleet code (e.g. SEDAN standard_car)')
    .action(async (p: string, code: string, vehicle: string) => {
      const body = { vehicle: vehicle as Schemas['FleetCode'] };
      print(await api('putVehicleCode', 'PUT', `/partners/${id(p)}/vehicle-codes/${id(code)}`, body));
    });
  vocab
    .command('list <partner_id>')
    .description("list a partner's vehicle codes")
    .action(async (p: string) => {
      const r = await api('listVehicleCodes', 'GET', `/partners/${id(p)}/vehicle-codes`);
      print(r, () => table(r.data, ['code', 'vehicle']));
    });
  vocab
    .command('remove <partner_id> <code>')
    .description('remove a mapping')
    .action(async (p: string, code: string) => {
      const r = await api('deleteVehicleCode', 'DELETE', `/partners/${id(p)}/vehicle-codes/${id(code)}`);
      print(r, () => `removed ${r.code} → ${r.vehicle} for ${r.partner_id}\n`);
    });

  program
    .command('audit')
    .description('the audit log')
    .command('list')
    .description('the latest audit entries, newest first (secrets redacted)')
    .option('--limit <n>', 'how many (1-500, the API defaults to 50)')
    .option('--path <prefix>', 'entries whose path starts with this')
    .option('--partner <partner_id>', "one partner's entries")
    .option('--request-id <id>', 'one request')
    .option('--surface <surface>', 'transfers, ops, marketplace, webhooks or none')
    .option('--direction <direction>', 'inbound (requests we answered) or outbound (calls we made)')
    .option('--from <time>', 'entries at or after this time (ISO 8601)')
    .option('--to <time>', 'entries before this time (ISO 8601)')
    .option('--before-id <id>', 'the next page: entries older than this id')
    .action(async (o: { limit?: string; path?: string; partner?: string; requestId?: string; surface?: string; direction?: string; from?: string; to?: string; beforeId?: string }) => {
      const query = {
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
      const defined = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
      const qs = defined.length ? `?${new URLSearchParams(defined)}` : '';
      const r = await api('listAudit', 'GET', `/audit${qs}`);
      print(r, () => table(r.data, ['id', 'at', 'surface', 'direction', 'method', 'path', 'status', 'partner_id', 'request_id', 'duration_ms']));
    });

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

function describeError(e: ApiError): string {
  const fieldErrors = (e.details?.fields ?? []) as Array<{ field: string; message: string }>;
  return [`error ${e.code}: ${e.message}`, ...fieldErrors.map((f) => `  ${f.field}: ${f.message}`)].join('\n');
}

function reason(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; message?: string };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

const cell = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function fields(obj: object): string {
  const entries = Object.entries(obj);
  const width = Math.max(0, ...entries.map(([k]) => k.length + 1));
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width)} ${cell(v)}\n`).join('');
}

function table<T>(rows: T[], columns: Array<keyof T & string>): string {
  if (!rows.length) return '(none)\n';
  const lines = [columns as string[], ...rows.map((r) => columns.map((c) => cell(r[c])))];
  const widths = columns.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) => `${l.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}\n`).join('');
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
