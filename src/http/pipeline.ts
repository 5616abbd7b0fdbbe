import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, invalidRequest, serviceUnavailable } from '../shared/errors';
import { requestId as newRequestId } from '../shared/ids';
import { mayHoldSecrets, redactBody, redactBytes, redactHeaders, redactUrl } from '../shared/redact';
import { combine } from '../data/write';
import { commitWithAudit, jsonbText, unparsedBody, type AuditEntry } from '../data/repositories/audit-repository';
import { isStaleCredentials } from '../data/repositories/partners-repository';
import type { Deps } from '../deps';
import { decodeBody } from './decode';
import type { Surface } from './surface';
import { RequestContext, type Document, type HandlerResult } from './types';

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
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

type Sent = HandlerResult & { headers: Record<string, string>; text: string };
type Outcome = 'committed' | 'not_written' | 'conflict' | 'stale' | 'unavailable' | 'failed';

/**
 * The request body as the audit log keeps it: the JSON value (redacted) when the body is JSON under the text
 * policy, otherwise the bytes themselves in the `$unparsed` form (see audit-repository.unparsedBody).
 */
function auditRequestBody(ctx: RequestContext): string | null {
  const raw = ctx.rawBody;
  if (raw.length === 0) return null;
  const contentType = ctx.headers['content-type'] as string | undefined;
  let decoded = ctx.decodedBody;
  if (!decoded) {
    try {
      decoded = decodeBody(raw, contentType);
    } catch (e) {
      const reason = e instanceof AppError ? (e.details.fields as Array<{ field: string; message: string }> | undefined)?.[0] : undefined;
      return unparsedBody(redactBytes(raw), reason ? `${reason.field} ${reason.message}` : 'not JSON');
    }
  }
  if (!decoded) return null;
  return jsonbText(mayHoldSecrets(decoded.text) ? redactBody(decoded.value) : decoded.value);
}

function auditResponseBody(text: string, document?: Document): string | null {
  if (document) return jsonbText({ $document: document.contentType, bytes: document.bytes.length, sha256: createHash('sha256').update(document.bytes).digest('hex') });
  if (!text) return null;
  if (!mayHoldSecrets(text)) return text;
  return jsonbText(redactBody(JSON.parse(text)));
}

/**
 * One request, start to finish: read the body (64 KiB), let the surface route and authenticate it, judge it under
 * the text policy and the contract, and answer; then the audit row, committed with whatever the request changed
 * (in its transaction, or in one statement with its write), and only then the response is sent.
 *
 * Nothing changes without its audit record: if the row cannot be written the change rolls back. What the client
 * then hears depends on why: the database unreachable (or the audit log refusing the row) is 503 with Retry-After;
 * anything else is a bug on our side, answered 500 and audited on its own.
 */
export function pipeline(surface: Surface, deps: Deps) {
  return async (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse): Promise<void> => {
    const started = process.hrtime.bigint();
    const url = req.originalUrl ?? req.url ?? '/';
    const requestId = newRequestId();
    // Arrived after shutdown began: refused, not run (requests already running finish).
    const refused = deps.lifecycle.draining;
    let raw: Buffer = Buffer.alloc(0);
    let early: AppError | undefined;
    try {
      raw = await readBody(req, deps.config.maxBodyBytes);
    } catch (e) {
      early = e instanceof AppError ? e : invalidRequest('The request body could not be read.');
    }
    if (refused) {
      // The client retries on another instance, or on this one after its restart.
      early = serviceUnavailable(1);
      res.shouldKeepAlive = false;
    }
    const ctx = new RequestContext({ requestId, surface: surface.name, deps, method: req.method ?? 'GET', url, headers: req.headers, rawBody: raw, clientAddress: req.socket.remoteAddress });

    let result = await answer(() => surface.handle(ctx, early));
    let sent = finish(result);
    let outcome = await commit(sent);
    let restarted = false;
    let fellBack = false;
    for (;;) {
      if (outcome === 'stale' && !restarted) {
        // The credentials changed between their lookup and the commit (a key revoked, a partner paused): nothing
        // was written; the request runs again against the database.
        restarted = true;
        ctx.restart();
        result = await answer(() => surface.handle(ctx, early));
      } else if ((outcome === 'not_written' || outcome === 'conflict') && result.otherwise && !fellBack) {
        // The optimistic write lost a race (a row taken meanwhile): the careful path works out the real answer.
        fellBack = true;
        const careful = result.otherwise;
        result = await answer(careful);
      } else break;
      sent = finish(result);
      outcome = await commit(sent);
    }
    if (outcome === 'committed') result.afterCommit?.();
    else {
      const failed = sent;
      sent = finish(
        outcome === 'unavailable'
          ? surface.errorResult(ctx, serviceUnavailable())
          : surface.errorResult(ctx, new AppError('internal_error', 500, 'An internal error occurred; it has been logged.')),
      );
      // A bug is audited on its own; if even that row cannot be written, the audit log is unavailable: 503.
      if (outcome !== 'unavailable' && (await commit(sent)) !== 'committed') sent = finish(surface.errorResult(ctx, serviceUnavailable()));
      deps.logger.error({ requestId, url: redactUrl(url), status: failed.status, answered: sent.status }, 'request not committed');
    }
    send(res, sent);
    deps.logger.info({ requestId, method: req.method, path: url.split('?')[0], status: sent.status, ms: msSince(started) }, 'request');

    async function answer(run: () => Promise<HandlerResult>): Promise<HandlerResult> {
      try {
        return await run();
      } catch (e) {
        await abandon();
        if (e instanceof AppError) return surface.errorResult(ctx, e);
        deps.logger.error({ err: e, requestId }, 'unhandled error');
        return surface.errorResult(ctx, new AppError('internal_error', 500, 'An internal error occurred; it has been logged.'));
      }
    }

    async function abandon() {
      await ctx.transaction?.rollback();
      ctx.dropTransaction();
    }

    function finish(r: HandlerResult): Sent {
      const headers: Record<string, string> = { 'X-Request-Id': requestId, ...(surface.commonHeaders?.(ctx) ?? {}), ...(r.headers ?? {}) };
      const text = r.document ? '' : (r.rawBody ?? (r.body === undefined ? '' : JSON.stringify(r.body)));
      return { ...r, headers, text };
    }

    /** The audit row, with the request's transaction or write. */
    async function commit(s: Sent): Promise<Outcome> {
      const entry: AuditEntry = {
        surface: surface.name,
        direction: 'inbound',
        method: ctx.method,
        path: redactUrl(url),
        status: s.status,
        partnerId: ctx.partner?.partnerId ?? null,
        env: ctx.env ?? null,
        requestId,
        requestHeaders: jsonbText(redactHeaders(req.headers))!,
        requestBody: auditRequestBody(ctx),
        responseHeaders: jsonbText(redactHeaders(s.headers))!,
        responseBody: auditResponseBody(s.text, s.document),
        durationMs: msSince(started),
      };
      const write = combine(s.write, ...ctx.owed, surface.owedAtCommit?.(ctx));
      try {
        const tx = ctx.transaction;
        if (tx) {
          await commitWithAudit(tx, write, entry);
          await tx.commit();
          ctx.dropTransaction();
          return 'committed';
        }
        return (await commitWithAudit(deps.db, write, entry)) ? 'committed' : 'not_written';
      } catch (e) {
        await abandon();
        if (e instanceof AppError && e.code === 'service_unavailable') return 'unavailable';
        if (isStaleCredentials(e)) return 'stale';
        if (s.write && s.otherwise) return 'conflict';
        deps.logger.error({ err: e, requestId }, 'the audit row (or the write with it) failed');
        return 'failed';
      }
    }
  };
}

const msSince = (t: bigint) => Number((process.hrtime.bigint() - t) / 1_000_000n);

function send(res: ServerResponse, r: Sent): void {
  res.statusCode = r.status;
  for (const [k, v] of Object.entries(r.headers)) res.setHeader(k, v);
  if (r.document) {
    res.setHeader('Content-Type', r.document.contentType);
    res.setHeader('Content-Length', r.document.bytes.length);
    res.setHeader('Cache-Control', r.document.cacheSeconds ? `public, max-age=${r.document.cacheSeconds}` : 'no-store');
    res.end(r.document.bytes);
    return;
  }
  if (r.text) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(r.text));
  }
  res.setHeader('Cache-Control', 'no-store');
  res.end(r.text);
}
