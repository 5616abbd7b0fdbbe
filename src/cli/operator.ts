/**
 * The operator CLI: a thin client of the operator API (contracts/ops-v1.yaml). It parses arguments and prints
 * answers; the API validates everything and its errors are shown as they come.
 *
 *   npm run --silent operator -- <ping|account|partner|key|vocab|vehicle|driver|job|outbox|webhook|audit> [<verb>] … [--json]
 *
 * Each operation needs a role (viewer, dispatcher or admin; ops-v1.yaml's `x-required-role`): a token whose operator
 * has a lower one gets the API's 403 `forbidden`, shown as it comes.
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
  // With OPS_LISTEN the operator API is on that address only (PUBLIC_BASE_URL no longer serves it).
  const opsListen = env('OPS_LISTEN')?.replace(/^0\.0\.0\.0:/, '127.0.0.1:').replace(/^\[::\]:/, '[::1]:');
  const defaultBaseUrl = env('OPERATOR_BASE_URL') ?? (opsListen && `http://${opsListen}`) ?? env('PUBLIC_BASE_URL') ?? `http://localhost:${env('PORT') ?? 3000}`;
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

  program
    .command('ping')
    .description("check the token; the service's time and today's date in Sri Lanka")
    .action(async () => print(await api('getOpsPing', 'GET', '/ping')));

  const account = program.command('account').description('named operators, each with a role and a token of its own (admin)');
  account
    .command('create')
    .description('name an operator and issue its token (shown this once)')
    .requiredOption('--name <name>', "the operator's name, e.g. \"Nimali Perera\"")
    .requiredOption('--role <viewer|dispatcher|admin>', 'viewer (reads), dispatcher (also the fleet, jobs, retries, the audit log) or admin (everything)')
    .action(async (o: { name: string; role: string }) => {
      // The role is not checked here: the API's invalid_request names the field.
      const created = await api('createOperator', 'POST', '/operators', { name: o.name, role: o.role as Schemas['OperatorRole'] });
      const { token, ...info } = created;
      print(created, () => `${fields(info)}\n    ${token}\n\nStore this token now: it is shown once and cannot be retrieved again. Give it to ${info.name} over a secure channel.\n`);
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
    .action(async (p: string, o: { env: string; rps?: string; burst?: string; none?: boolean }, cmd: Command) => {
      if (o.none ? o.rps !== undefined || o.burst !== undefined : o.rps === undefined) cmd.error('error: give --rps <n> (and --burst <n> if wanted), or --none');
      // A word that is not a number would be sent as null (no limit): refused here instead.
      const number = (flag: string, v: string) => {
        const n = Number(v);
        if (v.trim() === '' || !Number.isFinite(n)) cmd.error(`error: ${flag} must be a number, not "${v}"`);
        return n;
      };
      const env = (({ test: 'sandbox', live: 'production' }) as Record<string, string>)[o.env] ?? o.env;
      const body: Body<'putPartnerRateLimit'> = { env: env as Schemas['Env'], requests_per_second: o.none ? null : number('--rps', o.rps!) };
      if (o.burst !== undefined) body.burst = number('--burst', o.burst);
      const r = await api('putPartnerRateLimit', 'PUT', `/partners/${id(p)}/rate-limit`, body);
      const limit = (l: Schemas['RateLimit']) => (l ? `${l.requests_per_second} requests/s, burst ${l.burst}` : 'none');
      print(r, () => fields({ partner_id: r.partner_id, name: r.name, sandbox: limit(r.rate_limits.sandbox), production: limit(r.rate_limits.production) }));
    });

  const key = program.command('key').description('partner API keys');
  key
    .command('create <partner_id>')
    .description('issue an API key (shown this once)')
    .requiredOption('--env <sandbox|production|test|live>', 'the environment the key reaches (test = sandbox, live = production)')
    .action(async (p: string, o: { env: string }) => {
      // The key's own words (svc_sk_test_, svc_sk_live_) are accepted as well as the environments'.
      const env = ({ test: 'sandbox', live: 'production' } as Record<string, string>)[o.env] ?? o.env;
      const k = await api('createKey', 'POST', `/partners/${id(p)}/keys`, { env: env as Schemas['Env'] });
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

  const vehicle = program.command('vehicle').description('the fleet\'s vehicles');
  vehicle
    .command('add <fleet_code> <plate> <brand> <model> <colour>')
    .description('register a vehicle (e.g. standard_car CAB-4821 Toyota Axio white)')
    .action(async (fleetCode: string, plate: string, brand: string, model: string, colour: string) => {
      print(await api('createVehicle', 'POST', '/vehicles', { fleet_code: fleetCode as Schemas['FleetCode'], plate, brand: brand as Schemas['Brand'], model, colour }));
    });
  vehicle
    .command('list')
    .description('list vehicles, by class then plate')
    .option('--fleet-code <code>', 'one class')
    .option('--active', 'active ones only')
    .action(async (o: { fleetCode?: string; active?: boolean }) => {
      const r = await api('listVehicles', 'GET', `/vehicles${query({ fleet_code: o.fleetCode, active: o.active ? 'true' : undefined })}`);
      print(r, () => table(r.data, ['vehicle_id', 'fleet_code', 'plate', 'brand', 'model', 'colour', 'active']));
    });
  vehicle
    .command('deactivate <vehicle_id>')
    .description('take a vehicle out of service')
    .action(async (v: string) => print(await api('deactivateVehicle', 'POST', `/vehicles/${id(v)}/deactivate`)));

  const driver = program.command('driver').description('the drivers');
  driver
    .command('add <name> <phone>')
    .description('register a driver')
    .option('--languages <codes>', 'comma-separated ISO 639-1 codes, e.g. si,en')
    .action(async (name: string, phone: string, o: { languages?: string }) => {
      print(await api('createDriver', 'POST', '/drivers', { name, phone, ...(o.languages ? { languages: o.languages.split(',').map((l) => l.trim()) } : {}) }));
    });
  driver
    .command('list')
    .description('list drivers')
    .option('--active', 'active ones only')
    .action(async (o: { active?: boolean }) => {
      const r = await api('listDrivers', 'GET', `/drivers${query({ active: o.active ? 'true' : undefined })}`);
      print(r, () => table(r.data, ['driver_id', 'name', 'phone', 'languages', 'active']));
    });
  driver
    .command('deactivate <driver_id>')
    .description('take a driver off the roster')
    .action(async (d: string) => print(await api('deactivateDriver', 'POST', `/drivers/${id(d)}/deactivate`)));

  const job = program.command('job').description('the schedule: production bookings and marketplace orders');
  const jobColumns = (j: Schemas['Job']) => ({
    job_id: j.job_id,
    pickup_at: j.pickup_at,
    ends_at: j.ends_at,
    status: j.status,
    fleet_code: j.fleet_code,
    for: j.booking_ref ?? j.order_id,
    from: j.pickup.name,
    to: j.dropoff.name,
    driver: j.driver?.name ?? null,
    vehicle: j.vehicle?.plate ?? null,
  });
  job
    .command('list')
    .description('jobs by pickup time (default: from 24 hours ago)')
    .option('--date <YYYY-MM-DD>', 'a day, Sri Lanka time')
    .option('--status <status>', 'confirmed, driver_assigned, completed, no_show or cancelled')
    .option('--booking <booking_ref>', "a partner booking's job")
    .option('--order <order_id>', "a marketplace order's job")
    .action(async (o: { date?: string; status?: string; booking?: string; order?: string }) => {
      const r = await api('listJobs', 'GET', `/jobs${query({ date: o.date, status: o.status, booking_ref: o.booking, order_id: o.order })}`);
      print(r, () => table(r.data.map(jobColumns), ['job_id', 'pickup_at', 'status', 'fleet_code', 'for', 'from', 'to', 'driver', 'vehicle']));
    });
  job
    .command('show <job_id>')
    .description('one job')
    .action(async (j: string) => print(await api('getJob', 'GET', `/jobs/${id(j)}`)));
  job
    .command('assign <job_id> <driver_id> <vehicle_id>')
    .description('assign (or reassign, until pickup) a driver and a vehicle')
    .action(async (j: string, driverId: string, vehicleId: string) => {
      const r = await api('assignJob', 'POST', `/jobs/${id(j)}/assign`, { driver_id: driverId, vehicle_id: vehicleId });
      print(r, () => fields(jobColumns(r)));
    });
  job
    .command('locate <job_id> <lat> <lon>')
    .description("record the driver's position")
    .option('--at <time>', 'when it was taken (ISO 8601; default now)')
    .action(async (j: string, lat: string, lon: string, o: { at?: string }) => {
      print(await api('reportJobLocation', 'POST', `/jobs/${id(j)}/location`, { lat: Number(lat), lon: Number(lon), ...(o.at ? { at: o.at } : {}) }));
    });
  job
    .command('complete <job_id>')
    .description('the transfer is done')
    .action(async (j: string) => print(await api('completeJob', 'POST', `/jobs/${id(j)}/complete`)));
  job
    .command('no-show <job_id> <note>')
    .description('the passenger did not show (after pickup, within 24 hours)')
    .action(async (j: string, note: string) => print(await api('reportNoShow', 'POST', `/jobs/${id(j)}/no-show`, { note })));

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
    .action(async (o: { status?: string; kind?: string; order?: string; partner?: string; endpoint?: string; event?: string; limit?: string }) => {
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
    .action(async (e: string, o: { reason?: string }) => print(await api('disableWebhookEndpoint', 'POST', `/webhook_endpoints/${id(e)}/disable`, o.reason ? { reason: o.reason } : undefined)));
  webhook
    .command('enable <endpoint_id>')
    .description('resume deliveries to an endpoint (retry failed ones with outbox retry)')
    .action(async (e: string) => print(await api('enableWebhookEndpoint', 'POST', `/webhook_endpoints/${id(e)}/enable`)));

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
    .action(async (o: { limit?: string; path?: string; partner?: string; requestId?: string; surface?: string; direction?: string; from?: string; to?: string; beforeId?: string }) => {
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

/** `?a=1&b=2` of the defined values, or ''. */
function query(values: Record<string, string | undefined>): string {
  const defined = Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined);
  return defined.length ? `?${new URLSearchParams(defined)}` : '';
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
