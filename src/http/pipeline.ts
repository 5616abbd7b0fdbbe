import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, invalidRequest, isDatabaseUnavailable, serviceUnavailable } from '../shared/errors';
import { requestId as newRequestId } from '../shared/ids';
import { appendAudit } from '../domain/audit/audit-log';
import { redactBody, redactHeaders, redactUrl } from '../shared/redact';
import type { Deps } from '../deps';
import type { HandlerResult, RequestContext, SurfaceName } from './types';

export interface ParsedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface PipelineSurface {
  name: SurfaceName;
  /** Produces the response; runs inside the request's transaction. */
  handle(req: ParsedRequest, ctx: RequestContext): Promise<HandlerResult>;
  /** Renders an error in this surface's envelope. */
  errorResult(ctx: RequestContext | undefined, err: AppError): HandlerResult;
  /** Headers every response of this surface carries. */
  commonHeaders?(ctx: RequestContext | undefined): Record<string, string>;
}

class PayloadTooLarge extends AppError {
  constructor(limit: number) {
    super('payload_too_large', 413, `The request body is larger than ${limit / 1024} KiB.`, { limit_bytes: limit });
  }
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    throw new PayloadTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw new PayloadTooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

function parseBody(req: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  if (!isJsonContentType(req.headers['content-type'])) {
    throw invalidRequest('Send the body as JSON with Content-Type: application/json.', [
      { field: 'Content-Type', message: `must be application/json, got ${req.headers['content-type'] ?? 'none'}` },
    ]);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw invalidRequest(`The body is not valid JSON: ${(e as Error).message}`, [
      { field: 'body', message: 'must be valid JSON' },
    ]);
  }
}

function parseQuery(url: string): Record<string, string | string[]> {
  const q = url.indexOf('?');
  const out: Record<string, string | string[]> = {};
  if (q < 0) return out;
  for (const [k, v] of new URLSearchParams(url.slice(q + 1))) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/**
 * One request, start to finish: read and parse the body (64 KiB limit), open the request's transaction, let the
 * surface answer, append the audit row in that same transaction, commit, send. If the audit row cannot be written
 * the transaction rolls back and the client gets 503: nothing is changed without its audit record.
 */
export function pipeline(surface: PipelineSurface, deps: Deps) {
  return async (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse): Promise<void> => {
    const started = process.hrtime.bigint();
    const url = req.originalUrl ?? req.url ?? '/';
    const path = url.split('?')[0];
    const requestId = newRequestId();
    let raw: Buffer = Buffer.alloc(0);
    let early: AppError | undefined;
    let body: unknown;
    try {
      raw = await readBody(req, deps.config.maxBodyBytes);
      body = parseBody(req, raw);
    } catch (e) {
      early = e instanceof AppError ? e : invalidRequest('The request body could not be read.');
    }

    let ctx: RequestContext | undefined;
    let result: HandlerResult;
    try {
      result = await deps.db.transaction(async (trx) => {
        ctx = {
          requestId,
          surface: surface.name,
          deps,
          method: req.method ?? 'GET',
          url,
          headers: req.headers,
          rawBody: raw,
          trx,
        };
        let r: HandlerResult;
        try {
          r = early
            ? surface.errorResult(ctx, early)
            : await surface.handle({ method: ctx.method, path, query: parseQuery(url), headers: req.headers, body }, ctx);
        } catch (e) {
          if (e instanceof AppError) r = surface.errorResult(ctx, e);
          else if (isDatabaseUnavailable(e)) throw e;
          else {
            deps.logger.error({ err: e, requestId }, 'unhandled error');
            r = surface.errorResult(ctx, new AppError('internal_error', 500, 'An internal error occurred; it has been logged.'));
          }
        }
        const final = finish(surface, requestId, ctx, r);
        await appendAudit(trx, {
          surface: surface.name,
          direction: 'inbound',
          method: ctx.method,
          path: redactUrl(url),
          status: final.status,
          partnerId: ctx.partner?.partnerId ?? null,
          env: ctx.env ?? null,
          requestId,
          requestHeaders: redactHeaders(req.headers),
          requestBody: redactBody(body !== undefined ? body : raw.length ? raw.toString('utf8') : null),
          responseHeaders: redactHeaders(final.headers ?? {}),
          responseBody: redactBody(final.rawBody !== undefined ? JSON.parse(final.rawBody) : final.body),
          durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
        });
        return final;
      });
    } catch (e) {
      deps.logger.error({ err: e, requestId, path }, 'request failed before commit; answering 503');
      // Nothing was committed. The 503 itself cannot be audited when the database is the problem.
      result = finish(surface, requestId, undefined, surface.errorResult(undefined, serviceUnavailable()));
    }
    send(res, result);
    deps.logger.info(
      { requestId, method: req.method, path, status: result.status, ms: Number((process.hrtime.bigint() - started) / 1_000_000n) },
      'request',
    );
  };

  function finish(
    s: PipelineSurface,
    requestId: string,
    ctx: RequestContext | undefined,
    r: HandlerResult,
  ): HandlerResult & { headers: Record<string, string> } {
    const headers: Record<string, string> = {
      'X-Request-Id': requestId,
      ...(s.commonHeaders?.(ctx) ?? {}),
      ...(r.headers ?? {}),
    };
    return { ...r, headers };
  }
}

function send(res: ServerResponse, r: HandlerResult): void {
  const payload = r.rawBody ?? (r.body === undefined ? '' : JSON.stringify(r.body));
  res.statusCode = r.status;
  for (const [k, v] of Object.entries(r.headers ?? {})) res.setHeader(k, v);
  if (payload) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(payload));
  }
  res.setHeader('Cache-Control', 'no-store');
  res.end(payload);
}
