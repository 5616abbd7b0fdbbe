import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import OpenAPIBackend, { type Document, type Operation as ContractOperation } from 'openapi-backend';
import OpenAPISchemaValidator from 'openapi-schema-validator';
import type { ErrorObject } from 'ajv';
import { AppError, invalidRequest } from '../shared/errors';
import { CONTRACTS_DIR } from '../shared/paths';
import type { Deps } from '../deps';
import type { Write } from '../data/write';
import { anonymousLimit } from './rate-limits';
import { HttpRefusal } from './errors';
import { decodeBody, decodeComponent, decodeQuery, printable } from './decode';
import { addContractFormats } from './formats';
import { describeFields, fieldErrors } from './field-errors';
import { routeIndex, type Route } from './routes';
import type { HandlerResult, OperationCall, RequestContext, SurfaceName } from './types';

const parsedContracts = new Map<string, Document>();

/** A contract as a document of the caller's own (openapi-backend dereferences in place): parsed once per process. */
export function loadContract(file: string): Document {
  let parsed = parsedContracts.get(file);
  if (!parsed) {
    parsed = yaml.load(fs.readFileSync(path.join(CONTRACTS_DIR, file), 'utf8')) as Document;
    parsedContracts.set(file, parsed);
  }
  return structuredClone(parsed);
}

/**
 * The OpenAPI 3 schema's validator, compiled once per process, and the contracts it has passed. openapi-backend's
 * own check compiles the schema again for every surface at every start: 0.8 s of CPU of each start, a fifth of a
 * test file that starts the service three times.
 */
let openApiSchema: OpenAPISchemaValidator | undefined;
const checkedContracts = new Set<string>();

/** Checks a contract against the OpenAPI 3 schema, as openapi-backend's strict mode would, once per process. */
export function checkContract(file: string, definition: Document): void {
  if (checkedContracts.has(file)) return;
  openApiSchema ??= new OpenAPISchemaValidator({ version: 3 });
  const { errors } = openApiSchema.validate(definition);
  if (errors.length) throw new Error(`contracts/${file} is not valid OpenAPI. ${errors.length} validation errors:\n${JSON.stringify(errors, null, 2)}`);
  checkedContracts.add(file);
}

/**
 * An operation's handler as the surface calls it. Declared through a method so that a handler typed from the
 * contract fits it as it is (its call narrowed to the operation's body and parameters, its context to what the
 * surface's security filled in): the surface dispatches an operation only after validating the call against that
 * same contract and authenticating the caller.
 */
interface OperationSignature {
  handle(call: OperationCall, ctx: RequestContext): Promise<HandlerResult>;
}
export type Operation = OperationSignature['handle'];

export interface SurfaceOptions {
  name: SurfaceName;
  contract: string;
  /** The mount path; operation paths in the contract are relative to it. */
  apiRoot: string;
  operations: Record<string, Operation>;
  /**
   * Checks the credential of one security scheme of the contract (`scheme`), or, before answering 404/405,
   * whether the caller is authenticated at all (`scheme` = 'route-miss') so routes are not revealed to strangers.
   * Runs before the body is judged, so every later error names the caller's environment.
   */
  authenticate(ctx: RequestContext, scheme: string): Promise<boolean>;
  unauthorized: (ctx: RequestContext) => AppError;
  /** Match paths exactly, trailing slash included (the marketplace's paths end in "/"). */
  exactTrailingSlashes?: boolean;
  /** Answer unknown routes without authenticating first (the marketplace expects a plain 404). */
  publicRouteMisses?: boolean;
  routeMissMessage?: (method: string, path: string, kind: 'not_found' | 'method_not_allowed') => string;
  errorResult: (ctx: RequestContext | undefined, err: AppError) => HandlerResult;
  commonHeaders?: (ctx: RequestContext | undefined) => Record<string, string>;
  /** Adds surface-wide fields (e.g. `env`) to every JSON object body before it is validated and sent. */
  decorate?(ctx: RequestContext, body: unknown): unknown;
  /**
   * What every request of the surface commits with its audit row, as it stands at commit time. `refused`: the
   * request is answered 429 and commits nothing else (but may still assert that its credentials are current).
   */
  owedAtCommit?: (ctx: RequestContext, refused: boolean) => Write | undefined;
  /** Runs after authentication and validation, before the operation: an answer here replaces the operation's. */
  intercept?(ctx: RequestContext): Promise<HandlerResult | undefined>;
  /**
   * Runs once the caller is authenticated for a route, before its body is judged: a refusal here (403 for a role
   * that may not, 429 for a partner over its limit) is answered as a refused request. `op` is the contract's
   * operation object (its `x-` extensions included).
   */
  admit?(ctx: RequestContext, op: ContractOperation): AppError | undefined;
  /** The final statement found the caller's rate-limit bucket empty: the 429 to answer (see rate-limits.ts). */
  rateLimitedAtCommit?: (ctx: RequestContext, retryAfterSeconds: number) => AppError;
}

export interface Surface {
  name: SurfaceName;
  errorResult: (ctx: RequestContext | undefined, err: AppError) => HandlerResult;
  commonHeaders?: (ctx: RequestContext | undefined) => Record<string, string>;
  owedAtCommit?: (ctx: RequestContext, refused: boolean) => Write | undefined;
  rateLimitedAtCommit?: (ctx: RequestContext, retryAfterSeconds: number) => AppError;
  /**
   * Answers one request: route, authenticate, then (only then) judge the body and parameters under the text
   * policy and the contract, and run the operation. `early` is an error found while reading the request (413):
   * it is answered after authentication, so it too carries the caller's environment.
   */
  handle(ctx: RequestContext, early?: AppError): Promise<HandlerResult>;
}

/** A surface served from a contract, whose operations another surface may run (see invoke). */
export interface ContractSurface extends Surface {
  /**
   * Runs one operation for a request that arrived on another surface and is already authenticated for this one
   * (an MCP tool call runs the Transfers operation it names): the input judged against this contract, the answer
   * in this surface's words, checked like any other. A refusal comes back as this surface's error answer.
   */
  invoke(ctx: RequestContext, operationId: string, input: OperationInput): Promise<HandlerResult>;
}

/** An operation's input as the contract names its parts. */
export interface OperationInput {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  /** Lower-case names. */
  header?: Record<string, string>;
  body?: unknown;
}

/**
 * A surface served from one OpenAPI contract. openapi-backend loads and checks the contract (strict), and compiles
 * its request and response validators; requests are routed against the contract's operations through an index
 * built once, authenticated per the operation's security requirements, validated by those compiled validators and
 * dispatched by operationId. Responses are checked against the contract unless RESPONSE_VALIDATION=off.
 */
export async function createSurface(opts: SurfaceOptions, deps: Deps): Promise<ContractSurface> {
  const definition = loadContract(opts.contract);
  // Quick mode skips checking the document against the OpenAPI schema: it is checked here, as strict mode would.
  checkContract(opts.contract, definition);
  const api = new OpenAPIBackend({
    definition,
    apiRoot: opts.apiRoot,
    ignoreTrailingSlashes: !opts.exactTrailingSlashes,
    strict: true,
    // Validators compile on an operation's first request instead of at start (3.3 s of CPU for the three contracts,
    // most of a restart); the definition is still checked in full, above.
    quick: true,
    coerceTypes: true,
    ajvOpts: { allErrors: true, strict: false },
    // RFC 3339 date-times and dates narrowed to what the database stores (formats.ts): no contract lets more through.
    customizeAjv: (ajv) => {
      addContractFormats(ajv);
      return ajv;
    },
  });
  // Registering every operation's handler lets openapi-backend's strict mode check them against the contract.
  api.register(Object.fromEntries(Object.keys(opts.operations).map((id) => [id, () => undefined])));
  await api.init();

  const { routes, match } = routeIndex(api, definition, opts);

  const defaultMessage = (method: string, p: string, kind: 'not_found' | 'method_not_allowed') =>
    kind === 'not_found' ? `No route ${method} ${p}.` : `${method} is not allowed on ${p}.`;

  async function authorised(ctx: RequestContext, route: Route): Promise<boolean> {
    if (!route.schemes.length) return true;
    for (const alternative of route.schemes) {
      let ok = true;
      for (const scheme of alternative) if (!(await opts.authenticate(ctx, scheme))) ok = false;
      if (ok) return true;
    }
    return false;
  }

  /** An operation's answer as it will be sent: decorated and checked against the contract (its careful path too). */
  function respond(ctx: RequestContext, route: Route, r: HandlerResult): HandlerResult {
    const out = r.rawBody !== undefined || r.document ? r : checked(ctx, route, r);
    const careful = out.ifLost;
    return careful ? { ...out, ifLost: async () => respond(ctx, route, await careful()) } : out;
  }

  function checked(ctx: RequestContext, route: Route, r: HandlerResult): HandlerResult {
    const body = opts.decorate && r.body !== undefined && r.status < 400 ? opts.decorate(ctx, r.body) : r.body;
    const out: HandlerResult = { ...r, body, auditDigest: route.auditDigest };
    if (deps.config.responseValidation !== 'off' && body !== undefined) {
      const v = api.validator.validateResponse(body, route.op, r.status);
      if (v.errors?.length) {
        deps.logger.error(
          { requestId: ctx.requestId, operationId: route.op.operationId, status: r.status, errors: v.errors },
          'response does not match the contract',
        );
        if (deps.config.responseValidation === 'enforce') {
          return opts.errorResult(ctx, new AppError('internal_error', 'response_contract_violation', { operation: route.op.operationId, errors: v.errors }));
        }
      }
    }
    return out;
  }

  const byOperation = new Map(routes.map((r) => [r.op.operationId!, r]));

  /** The input judged against the route's validators: the call, or the refusal naming every field at fault. */
  function judged(route: Route, input: Record<string, unknown>, headers: RequestContext['headers']): OperationCall | AppError {
    const errors: ErrorObject[] = [];
    for (const validate of route.validators()) if (!validate(input)) errors.push(...(validate.errors ?? []));
    if (errors.length) {
      const fields = fieldErrors(errors, input);
      return invalidRequest(describeFields(fields), fields);
    }
    return {
      operationId: route.op.operationId!,
      params: input.path as Record<string, string>,
      query: input.query as Record<string, unknown>,
      headers,
      body: (input as { requestBody?: unknown }).requestBody,
    };
  }

  async function invoke(ctx: RequestContext, operationId: string, given: OperationInput): Promise<HandlerResult> {
    const route = byOperation.get(operationId);
    if (!route) throw new Error(`no operation ${operationId} in ${opts.contract}`);
    const header = given.header ?? {};
    const input: Record<string, unknown> = { path: given.path ?? {}, query: given.query ?? {}, header, cookie: {} };
    if (given.body !== undefined) input.requestBody = given.body;
    const call = judged(route, input, header);
    if (call instanceof AppError) return opts.errorResult(ctx, call);
    try {
      return respond(ctx, route, await opts.operations[operationId](call, ctx));
    } catch (e) {
      if (e instanceof AppError) return opts.errorResult(ctx, e);
      throw e;
    }
  }

  async function handle(ctx: RequestContext, early?: AppError): Promise<HandlerResult> {
    const q = ctx.url.indexOf('?');
    const pathname = q < 0 ? ctx.url : ctx.url.slice(0, q);
    // A URL over the limit, or a body that did not arrive in time, is refused before anything is looked up.
    if (early?.code === 'uri_too_long' || early?.code === 'request_timeout') return opts.errorResult(ctx, (await anonymousLimit(ctx)) ?? early);
    const m = match(ctx.method, pathname);
    if ('miss' in m) {
      ctx.operationId = m.miss;
      if (opts.publicRouteMisses || !(await opts.authenticate(ctx, 'route-miss'))) {
        const limited = await anonymousLimit(ctx);
        if (limited) return opts.errorResult(ctx, limited);
        if (!opts.publicRouteMisses) return opts.errorResult(ctx, opts.unauthorized(ctx));
      }
      const message = (opts.routeMissMessage ?? defaultMessage)(ctx.method, printable(pathname), m.miss);
      const headers: Record<string, string> = m.miss === 'method_not_allowed' ? { Allow: m.allow.join(', ') } : {};
      return opts.errorResult(ctx, new HttpRefusal(m.miss, message, {}, {}, headers));
    }
    const { route } = m;
    ctx.operationId = route.op.operationId;
    const credentialed = route.schemes.length > 0;
    if (!credentialed || !(await authorised(ctx, route))) {
      // No valid credential: limited per client address; a public route is answered within that limit.
      const limited = await anonymousLimit(ctx);
      if (limited) return opts.errorResult(ctx, limited);
      if (credentialed) return opts.errorResult(ctx, opts.unauthorized(ctx));
    }
    if (early) return opts.errorResult(ctx, early);
    const refusal = credentialed ? opts.admit?.(ctx, route.op) : undefined;
    if (refusal) return opts.errorResult(ctx, refusal);
    ctx.admitted = credentialed;

    const params: Record<string, string> = {};
    for (const [name, raw] of Object.entries(m.rawParams)) params[name] = decodeComponent(raw, name);
    const query = decodeQuery(q < 0 ? '' : ctx.url.slice(q + 1));
    const header = ctx.headers as Record<string, unknown>;
    const decoded = decodeBody(ctx.rawBody, ctx.headers['content-type'] as string | undefined);
    ctx.decodedBody = decoded;
    const input: Record<string, unknown> = { path: params, query, header, cookie: {} };
    if (decoded) input.requestBody = decoded.value;
    const call = judged(route, input, ctx.headers);
    if (call instanceof AppError) return opts.errorResult(ctx, call);
    const intercepted = await opts.intercept?.(ctx);
    if (intercepted) return intercepted;
    // A refusal (AppError) propagates to the pipeline, which rolls back what the handler wrote before answering it.
    return respond(ctx, route, await opts.operations[call.operationId](call, ctx));
  }

  return {
    name: opts.name,
    errorResult: opts.errorResult,
    commonHeaders: opts.commonHeaders,
    owedAtCommit: opts.owedAtCommit,
    rateLimitedAtCommit: opts.rateLimitedAtCommit,
    handle,
    invoke,
  };
}
