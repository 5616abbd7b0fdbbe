/** The operator CLI's one request helper, and what commands need to build requests. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { listeningFile, readListening } from '../listening';
import type { components, operations as Ops } from '../../generated/ops-v1';
import type { Io } from './io';
import type { Print } from './output';

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** The success body (200 or 201) of an operation. */
export type Ok<O extends keyof Ops> = JsonOf<Ops[O]['responses'][Extract<keyof Ops[O]['responses'], 200 | 201>]>;
export type Body<O extends keyof Ops> = JsonOf<NonNullable<Ops[O]['requestBody']>>;
export type Schemas = components['schemas'];
type ApiError = Schemas['Error']['error'];

/** A failure already worded for the operator. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

/** Calls an operation of the API; the operation id only types the body and the answer. */
export type Api = <O extends keyof Ops>(op: O, method: string, apiPath: string, body?: Body<O>) => Promise<Ok<O>>;

/** What every command gets: the API, and the output formatter. */
export interface Cli {
  api: Api;
  print: Print;
}

/** An environment variable; an empty one means unset, as in src/config/env.ts. */
export const envOf = (io: Io) => (name: string) => io.env[name] || undefined;

/**
 * Where the service is by default, and where that came from (said when nothing answers there): OPERATOR_BASE_URL,
 * else OPS_LISTEN, else PUBLIC_BASE_URL, else this machine on PORT, else where a local `npm start` said it listens
 * (DATA_DIR/listening.json, see ../listening.ts), else port 3000. On this machine 127.0.0.1, not localhost, which may
 * name ::1 first (the service listens on IPv4).
 */
export function baseUrlDefault(io: Io): { url: string; from: string } {
  const env = envOf(io);
  // With OPS_LISTEN the operator API is on that address only (PUBLIC_BASE_URL no longer serves it).
  const opsListen = env('OPS_LISTEN')
    ?.replace(/^0\.0\.0\.0:/, '127.0.0.1:')
    .replace(/^\[::\]:/, '[::1]:');
  for (const [name, url] of [
    ['OPERATOR_BASE_URL', env('OPERATOR_BASE_URL')],
    ['OPS_LISTEN', opsListen && `http://${opsListen}`],
    ['PUBLIC_BASE_URL', env('PUBLIC_BASE_URL')],
    [`PORT=${env('PORT')}`, env('PORT') && `http://127.0.0.1:${env('PORT')}`],
  ] as const)
    if (url) return { url, from: `from ${name}` };
  const file = listeningFile(env('DATA_DIR'));
  const listening = readListening(env('DATA_DIR'));
  if (listening) return { url: listening.ops_url, from: `where npm start said it listens (${file})` };
  return { url: 'http://127.0.0.1:3000', from: `the default: PORT is not set, and no running npm start wrote ${file}` };
}

export const defaultBaseUrl = (io: Io): string => baseUrlDefault(io).url;

/** The base URL and the token, from the options, the environment, or the token file the service writes. */
function connection(program: Command, io: Io): { baseUrl: string; token: string } {
  const env = envOf(io);
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
}

/** The API of the service the program's options point at. Its errors are shown as they come. */
export function createApi(program: Command, io: Io): Api {
  return async <O extends keyof Ops>(_op: O, method: string, apiPath: string, body?: Body<O>): Promise<Ok<O>> => {
    const { baseUrl, token } = connection(program, io);
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
      const from = program.getOptionValueSource('baseUrl') === 'default' ? baseUrlDefault(io).from : 'from --base-url';
      const hint = 'is the service running? Point the CLI at it with --base-url http://<host>:<port>, or PORT=<port> on this machine.';
      throw new CliError(`cannot reach the operator API at ${baseUrl} (${reason(err)}), ${from}: ${hint}`, 2);
    }
    const json = parseJson(text);
    if (status < 300 && json !== undefined) return json as Ok<O>;
    const error = (json as { error?: ApiError } | undefined)?.error;
    if (error?.code) throw new CliError(describeError(error), 1);
    throw new CliError(`unexpected answer from ${method} ${url}: HTTP ${status} ${text.slice(0, 200)}`, 1);
  };
}

/** A path segment. */
export const id = encodeURIComponent;

/** `?a=1&b=2` of the defined values, or ''. */
export function query(values: Record<string, string | undefined>): string {
  const defined = Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined);
  return defined.length ? `?${new URLSearchParams(defined).toString()}` : '';
}

/**
 * The environment a word names: the keys' own words (svc_sk_test_, svc_sk_live_) are accepted as well as the
 * environments'. Anything else is sent as is (the API's invalid_request names the field).
 */
export function environment(word: string): Schemas['Env'] {
  return (({ test: 'sandbox', live: 'production' } as Record<string, string>)[word] ?? word) as Schemas['Env'];
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
