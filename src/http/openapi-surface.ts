import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import addFormats from 'ajv-formats';
import OpenAPIBackend, { type Context, type Document } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import { AppError, invalidRequest } from '../shared/errors';
import { CONTRACTS_DIR } from '../shared/paths';
import type { Deps } from '../deps';
import type { PipelineSurface, ParsedRequest } from './pipeline';
import type { HandlerResult, RequestContext, SurfaceName } from './types';


export function loadContract(file: string): Document {
  return yaml.load(fs.readFileSync(path.join(CONTRACTS_DIR, file), 'utf8')) as Document;
}

export type Operation = (c: Context, ctx: RequestContext) => Promise<HandlerResult>;

export interface OpenApiSurfaceOptions {
  name: SurfaceName;
  contract: string;
  apiRoot: string;
  operations: Record<string, Operation>;
  /**
   * Checks the credential of one security scheme of the contract (`scheme`), or, before answering 404/405,
   * whether the caller is authenticated at all (`scheme` = 'route-miss') so routes are not revealed to strangers.
   */
  authenticate(ctx: RequestContext, scheme: string): Promise<boolean>;
  unauthorized(ctx: RequestContext): AppError;
  /** Match paths exactly, trailing slash included (the marketplace's paths end in "/"). */
  exactTrailingSlashes?: boolean;
  /** Answer unknown routes without authenticating first (the marketplace expects a plain 404). */
  publicRouteMisses?: boolean;
  routeMissMessage?: (method: string, path: string, kind: 'not_found' | 'method_not_allowed') => string;
  errorResult(ctx: RequestContext | undefined, err: AppError): HandlerResult;
  commonHeaders?(ctx: RequestContext | undefined): Record<string, string>;
  /** Adds surface-wide fields (e.g. `env`) to every JSON object body before it is validated and sent. */
  decorate?(ctx: RequestContext, body: unknown): unknown;
}

/** Turns Ajv's errors into `details.fields`: one entry per offending field, named the way the client wrote it. */
export function fieldErrors(errors: ErrorObject[] | null | undefined): Array<{ field: string; message: string }> {
  const out: Array<{ field: string; message: string }> = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const parts = e.instancePath.split('/').filter(Boolean);
    let where = parts[0] === 'requestBody' ? parts.slice(1) : parts;
    if (['query', 'path', 'header', 'headers'].includes(where[0] ?? '')) where = where.slice(1);
    let field = where.join('.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      field = field ? `${field}.${missing}` : missing;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      field = field ? `${field}.${extra}` : extra;
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`;
    }
    if (!field) field = parts[0] === 'requestBody' || parts.length === 0 ? 'body' : parts.join('.');
    const key = `${field}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, message });
    }
  }
  return out;
}

export function describeFields(fields: Array<{ field: string; message: string }>): string {
  if (!fields.length) return 'The request is invalid.';
  const first = fields.slice(0, 3).map((f) => `${f.field} ${f.message}`).join('; ');
  return `The request is invalid: ${first}${fields.length > 3 ? ` (and ${fields.length - 3} more)` : ''}.`;
}

/**
 * A surface served from one OpenAPI contract: openapi-backend (strict) routes by operationId, runs the security
 * handler, validates the request, dispatches, and the response is checked against the contract on the way out.
 * Each operation runs in a savepoint, so an error it throws undoes its writes while the audit row still commits.
 */
export async function openApiSurface(opts: OpenApiSurfaceOptions, deps: Deps): Promise<PipelineSurface & { api: OpenAPIBackend }> {
  const definition = loadContract(opts.contract);
  const api = new OpenAPIBackend({
    definition,
    apiRoot: opts.apiRoot,
    ignoreTrailingSlashes: !opts.exactTrailingSlashes,
    strict: true,
    coerceTypes: true,
    ajvOpts: { allErrors: true, strict: false },
    customizeAjv: (ajv) => {
      addFormats(ajv as never);
      return ajv;
    },
  });

  const securitySchemes = Object.keys(definition.components?.securitySchemes ?? {});
  for (const scheme of securitySchemes) {
    api.registerSecurityHandler(scheme, (_c: Context, ctx: RequestContext) => opts.authenticate(ctx, scheme));
  }

  const defaultMessage = (method: string, path: string, kind: 'not_found' | 'method_not_allowed') =>
    kind === 'not_found' ? `No route ${method} ${path}.` : `${method} is not allowed on ${path}.`;
  const routeMiss = (kind: 'not_found' | 'method_not_allowed') => async (c: Context, ctx: RequestContext) => {
    if (!opts.publicRouteMisses && !(await opts.authenticate(ctx, 'route-miss'))) return opts.errorResult(ctx, opts.unauthorized(ctx));
    const message = (opts.routeMissMessage ?? defaultMessage)(c.request.method.toUpperCase(), c.request.path, kind);
    return opts.errorResult(ctx, new AppError(kind, kind === 'not_found' ? 404 : 405, message));
  };

  const handlers: Record<string, (c: Context, ctx: RequestContext) => unknown> = {
    notFound: routeMiss('not_found'),
    methodNotAllowed: routeMiss('method_not_allowed'),
    unauthorizedHandler: (_c: Context, ctx: RequestContext) => opts.errorResult(ctx, opts.unauthorized(ctx)),
    validationFail: (c: Context, ctx: RequestContext) => {
      const fields = fieldErrors(c.validation.errors);
      return opts.errorResult(ctx, invalidRequest(describeFields(fields), fields));
    },
    postResponseHandler: (c: Context, ctx: RequestContext) => {
      const r = c.response as HandlerResult;
      const body = opts.decorate && r.body !== undefined ? opts.decorate(ctx, r.body) : r.body;
      const out: HandlerResult = { ...r, body };
      if (c.operation && body !== undefined) {
        const v = c.api.validateResponse(body, c.operation, r.status);
        if (v.errors?.length) {
          deps.logger.error(
            { requestId: ctx.requestId, operationId: c.operation.operationId, status: r.status, errors: v.errors },
            'response does not match the contract',
          );
          if (deps.config.responseValidation === 'enforce') {
            return opts.errorResult(
              ctx,
              new AppError('internal_error', 500, 'response_contract_violation', { operation: c.operation.operationId, errors: v.errors }),
            );
          }
        }
      }
      return out;
    },
  };
  for (const [operationId, op] of Object.entries(opts.operations)) {
    handlers[operationId] = async (c: Context, ctx: RequestContext) => {
      try {
        return await ctx.trx.transaction((sp) => op(c, Object.assign(Object.create(ctx), { trx: sp })));
      } catch (e) {
        if (e instanceof AppError) return opts.errorResult(ctx, e);
        throw e;
      }
    };
  }
  api.register(handlers as never);
  await api.init();

  return {
    api,
    name: opts.name,
    errorResult: opts.errorResult,
    commonHeaders: opts.commonHeaders,
    handle: (req: ParsedRequest, ctx: RequestContext) =>
      api.handleRequest(
        { method: req.method, path: req.path, query: req.query, headers: req.headers as Record<string, string>, body: req.body },
        ctx,
      ) as Promise<HandlerResult>,
  };
}
