import type { IncomingMessage, ServerResponse } from 'node:http';
import ipaddr from 'ipaddr.js';
import { AppError, invalidRequest, serviceUnavailable } from '../shared/errors';
import { requestId as newRequestId } from '../shared/ids';
import { keptUrl, redactHeaders, redactUrl } from '../shared/redact';
import { combine } from '../data/write';
import { jsonbText, type AuditEntry } from '../data/repositories/audit-repository';
import { commitWithAudit } from '../data/repositories/audit-commit';
import { isStaleCredentials } from '../data/repositories/partners-repository';
import { rateLimitedFor } from '../data/repositories/rate-limits-repository';
import { isContention, isLockTimeout } from '../data/errors';
import type { Deps } from '../deps';
import { auditBodies, auditRequestHeaders } from './audit-entry';
import { newKeysStored } from '../domain/kernel/data-keys';
import { discard, MAX_URL_BYTES, payloadTooLarge, readBody, requestTimeout, traceIdOf, uriTooLong } from './request-intake';
import type { Surface } from './surface';
import { RequestContext, type HandlerResult } from './types';

/** An answer as it will be sent: its headers complete, its body serialised. */
type Sent = HandlerResult & { headers: Record<string, string>; text: string };
/** How committing an answer ended. 'lost': its guarded write did not happen; nothing was committed. */
type Committed =
  | { outcome: 'committed'; sent: Sent; newKeys: ReadonlyMap<string, Buffer> }
  | { outcome: 'lost' | 'stale' | 'unavailable' | 'failed'; sent: Sent }
  | { outcome: 'rate_limited'; sent: Sent; retryAfter: number };

type Req = IncomingMessage & { originalUrl?: string; ip?: string };

/**
 * One request, start to finish, in named steps: read it (refuse a URL over 8 KiB with 414, a body over 64 KiB with
 * 413), let the surface route, authenticate, judge and run it (the operation returns its answer and its plan:
 * the write that makes it true, what to do if that write loses a race), commit the plan with the audit row, and
 * only then answer.
 *
 * This is the only code that commits. Nothing changes without its audit record: if the row cannot be written the
 * change rolls back. What the client then hears depends on why: the database unreachable, a row held elsewhere past
 * lock_timeout, or the audit log refusing the row, is 503 with Retry-After; anything else is a bug on our side,
 * answered 500 and audited on its own.
 *
 * A request refused before its operation ran (no valid credential, an unknown route, too large, rate limited) costs
 * a small audit row: its URL is kept whole up to 2 KiB, its body as a trace (size, digest, first KiB).
 */
export function pipeline(surface: Surface, deps: Deps) {
  return async (req: Req, res: ServerResponse): Promise<void> => {
    const started = process.hrtime.bigint();
    const arrivedAt = new Date();
    const { ctx, early } = await read(req, res, surface, deps, started, arrivedAt);
    const sent = await serve(surface, ctx, early);
    send(res, sent);
    observe(surface, ctx, sent);
  };
}

/** What arrived: the URL and body within their limits, and a request refused while the instance drains. */
async function read(req: Req, res: ServerResponse, surface: Surface, deps: Deps, started: bigint, arrivedAt: Date) {
  const url = req.originalUrl ?? req.url ?? '/';
  // Arrived after shutdown began: refused, not run (requests already running, or still uploading, finish).
  const arrivedDraining = deps.lifecycle.draining;
  // Read before the body: a client that goes away takes its socket with it. `req.ip` honours TRUST_PROXY (and is
  // whatever a trusted proxy wrote, so it is kept only when it is an address).
  const clientAddress = req.ip && ipaddr.isValid(req.ip) ? req.ip : req.socket?.remoteAddress;
  let early: AppError | undefined;
  let raw: Buffer = EMPTY;
  if (Buffer.byteLength(url) > MAX_URL_BYTES) {
    early = uriTooLong();
    discard(req);
    res.shouldKeepAlive = false;
  } else {
    const body = await readBody(req, deps.config.maxBodyBytes, deps.config.requestTimeoutMs);
    raw = body.bytes;
    if (body.over) {
      early = payloadTooLarge(deps.config.maxBodyBytes);
      res.shouldKeepAlive = false;
    } else if (body.timedOut) {
      // Answered, then the connection is cut: the rest of the body is not waited for.
      early = requestTimeout();
      res.shouldKeepAlive = false;
      res.once('finish', () => req.socket.destroy());
    } else if (body.aborted) early = invalidRequest('The request body could not be read.');
  }
  if (arrivedDraining) {
    // The client retries on another instance, or on this one after its restart.
    early = serviceUnavailable(1);
    res.shouldKeepAlive = false;
  }
  const ctx = new RequestContext({
    requestId: newRequestId(),
    surface: surface.name,
    deps,
    method: req.method ?? 'GET',
    url,
    headers: req.headers,
    rawBody: raw,
    clientAddress,
    traceId: traceIdOf(req.headers.traceparent),
    arrivedAt,
    started,
  });
  return { ctx, early };
}

const EMPTY = Buffer.alloc(0);

/** Runs the request and commits it; what could not be committed is answered and audited on its own. */
async function serve(surface: Surface, ctx: RequestContext, early: AppError | undefined): Promise<Sent> {
  let done = await attempt(surface, ctx, early);
  if (done.outcome === 'stale') {
    // The credentials changed between their lookup and the commit (a key revoked, a partner paused): nothing was
    // written; the request runs again against the database.
    ctx.restart();
    done = await attempt(surface, ctx, early);
  }
  if (done.outcome === 'committed') return done.sent;
  if (done.outcome === 'rate_limited') {
    // The partner's bucket was empty: nothing the request did was kept; its refusal is audited on its own.
    const refusal = finish(surface, ctx, surface.errorResult(ctx, surface.rateLimitedAtCommit!(ctx, done.retryAfter)));
    return (await commit(surface, ctx, refusal)).outcome === 'committed' ? refusal : finish(surface, ctx, surface.errorResult(ctx, serviceUnavailable()));
  }
  ctx.deps.metrics.auditWriteFailures.inc();
  let sent = finish(surface, ctx, surface.errorResult(ctx, done.outcome === 'unavailable' ? serviceUnavailable() : internalError()));
  // A bug is audited on its own; if even that row cannot be written, the audit log is unavailable: 503.
  if (done.outcome !== 'unavailable' && (await commit(surface, ctx, sent)).outcome !== 'committed') {
    sent = finish(surface, ctx, surface.errorResult(ctx, serviceUnavailable()));
  }
  ctx.deps.logger.error(
    { requestId: ctx.requestId, url: keptUrl(redactUrl(ctx.url)), status: done.sent.status, answered: sent.status },
    'request not committed',
  );
  return sent;
}

/**
 * The operation's answer and its plan, committed. A guarded write that lost a race counted for nothing: the
 * operation's careful path decides again in the request's transaction, and that is committed instead.
 */
async function attempt(surface: Surface, ctx: RequestContext, early: AppError | undefined): Promise<Committed> {
  const result = await run(surface, ctx, () => surface.handle(ctx, early));
  let done = await commit(surface, ctx, finish(surface, ctx, result), result.ifLost !== undefined);
  if (done.outcome === 'lost' && result.ifLost) {
    const careful = await run(surface, ctx, result.ifLost);
    done = await commit(surface, ctx, finish(surface, ctx, careful));
    if (done.outcome === 'committed') remember(ctx, careful, done.newKeys);
  } else if (done.outcome === 'committed') remember(ctx, result, done.newKeys);
  return done;
}

/** Runs an operation (or its careful path): a refusal it throws rolls back what it wrote and becomes the answer. */
async function run(surface: Surface, ctx: RequestContext, work: () => Promise<HandlerResult>): Promise<HandlerResult> {
  try {
    return await work();
  } catch (e) {
    await abandon(ctx);
    if (e instanceof AppError) return surface.errorResult(ctx, e);
    // A row held by another transaction past lock_timeout, where the operation had no race to settle: busy, not a
    // bug. The client retries with its Idempotency-Key; the log names it for whoever looks for the holder.
    if (isLockTimeout(e)) {
      ctx.deps.logger.warn({ err: e, requestId: ctx.requestId }, 'a row stayed locked past lock_timeout: answered 503');
      return surface.errorResult(ctx, serviceUnavailable());
    }
    ctx.deps.logger.error({ err: e, requestId: ctx.requestId }, 'unhandled error');
    return surface.errorResult(ctx, internalError());
  }
}

/** After the commit: what this instance remembers of it (in memory only; a failure there is a bug, logged). */
function remember(ctx: RequestContext, r: HandlerResult, newKeys: ReadonlyMap<string, Buffer>): void {
  for (const [subject, key] of newKeys) ctx.deps.dataKeys.made(subject, key);
  try {
    r.afterCommit?.();
  } catch (e) {
    ctx.deps.logger.error({ err: e, requestId: ctx.requestId }, 'error after the request committed');
  }
}

async function abandon(ctx: RequestContext): Promise<void> {
  await ctx.transaction?.rollback();
  ctx.dropTransaction();
}

const internalError = () => new AppError('internal_error', 'An internal error occurred; it has been logged.');

function finish(surface: Surface, ctx: RequestContext, r: HandlerResult): Sent {
  const common = surface.commonHeaders?.(ctx);
  const headers: Record<string, string> = { 'X-Request-Id': ctx.requestId, ...common, ...r.headers };
  const text = r.document ? '' : (r.rawBody ?? (r.body === undefined ? '' : JSON.stringify(r.body)));
  return { ...r, headers, text };
}

/**
 * The audit row with the answer's write and the data keys it sealed with for new subjects (one statement), or
 * appended to the request's transaction, which then commits. `mayLose`: a guarded write that did not happen, or
 * lost a uniqueness, is 'lost' (nothing committed).
 */
async function commit(surface: Surface, ctx: RequestContext, s: Sent, mayLose = false): Promise<Committed> {
  try {
    const { entry, newKeys } = await auditEntry(ctx, s);
    // A 429 commits nothing but its audit row, and the assertion that the caller's credentials are as it knew them:
    // a limit an operator changed meanwhile is then read afresh (the request runs again) instead of refused on.
    const write =
      s.status === 429
        ? surface.owedAtCommit?.(ctx, true)
        : combine(s.write, newKeys.size ? newKeysStored(newKeys) : undefined, ...ctx.owed, surface.owedAtCommit?.(ctx, false));
    const tx = ctx.transaction;
    if (tx) {
      await commitWithAudit(tx, write, entry);
      await tx.commit();
      ctx.dropTransaction();
      return { outcome: 'committed', sent: s, newKeys };
    }
    if (await commitWithAudit(ctx.deps.db, write, entry)) return { outcome: 'committed', sent: s, newKeys };
    return { outcome: mayLose ? 'lost' : 'failed', sent: s };
  } catch (e) {
    await abandon(ctx);
    if (e instanceof AppError && e.code === 'service_unavailable') return { outcome: 'unavailable', sent: s };
    if (isStaleCredentials(e)) return { outcome: 'stale', sent: s };
    const limited = rateLimitedFor(e);
    if (limited !== undefined && surface.rateLimitedAtCommit) return { outcome: 'rate_limited', sent: s, retryAfter: limited };
    if (mayLose && s.write && isContention(e)) return { outcome: 'lost', sent: s };
    // What the commit writes (the audit log itself, or a row of the write) held by another transaction past
    // lock_timeout: busy, as in run(), not a bug.
    if (isLockTimeout(e)) {
      ctx.deps.logger.warn({ err: e, requestId: ctx.requestId }, 'the commit waited past lock_timeout: answered 503');
      return { outcome: 'unavailable', sent: s };
    }
    ctx.deps.logger.error({ err: e, requestId: ctx.requestId }, 'the audit row (or the write with it) failed');
    return { outcome: 'failed', sent: s };
  }
}

async function auditEntry(ctx: RequestContext, s: Sent): Promise<{ entry: AuditEntry; newKeys: ReadonlyMap<string, Buffer> }> {
  const refused = !ctx.admitted || s.status === 429;
  const { requestBody, responseBody, subjects, newKeys } = await auditBodies(ctx, s, refused);
  const entry: AuditEntry = {
    surface: ctx.surface,
    direction: 'inbound',
    method: ctx.method.slice(0, 32),
    path: keptUrl(redactUrl(ctx.url)),
    status: s.status,
    partnerId: ctx.partner?.partnerId ?? null,
    env: ctx.env ?? null,
    requestId: ctx.requestId,
    requestHeaders: auditRequestHeaders(ctx.headers, refused),
    requestBody,
    responseHeaders: jsonbText(redactHeaders(s.headers))!,
    responseBody,
    subjects,
    durationMs: Number((process.hrtime.bigint() - ctx.started) / 1_000_000n),
    client: ctx.clientAddress ?? null,
    operatorId: ctx.operator?.operatorId ?? null,
    traceId: ctx.traceId ?? null,
    at: ctx.arrivedAt,
  };
  return { entry, newKeys };
}

function send(res: ServerResponse, r: Sent): void {
  if (res.destroyed) return;
  res.statusCode = r.status;
  res.setHeader('X-Content-Type-Options', 'nosniff');
  for (const k in r.headers) res.setHeader(k, r.headers[k]);
  if (r.document) {
    res.setHeader('Content-Type', r.document.contentType);
    res.setHeader('Content-Length', r.document.bytes.length);
    res.setHeader('Cache-Control', r.document.cacheSeconds ? `public, max-age=${r.document.cacheSeconds}` : 'no-store');
    res.end(r.document.bytes);
    return;
  }
  if (r.text) {
    res.setHeader('Content-Type', r.contentType ?? 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(r.text));
  }
  res.setHeader('Cache-Control', 'no-store');
  res.end(r.text);
}

/** The request's metrics and its log line. */
function observe(surface: Surface, ctx: RequestContext, sent: Sent): void {
  const seconds = Number(process.hrtime.bigint() - ctx.started) / 1e9;
  const { metrics, logger } = ctx.deps;
  metrics.observeRequest(surface.name, ctx.operationId, sent.status, seconds);
  if (sent.status === 429) metrics.rateLimited.inc({ scope: ctx.partner ? 'partner' : 'anonymous' });
  if (!logger.isLevelEnabled('info')) return;
  logger.info(
    {
      requestId: ctx.requestId,
      method: ctx.method,
      path: keptUrl(redactUrl(ctx.url.split('?')[0])),
      status: sent.status,
      ms: Math.round(seconds * 1000),
      ...(ctx.traceId ? { traceId: ctx.traceId } : {}),
    },
    'request',
  );
}
