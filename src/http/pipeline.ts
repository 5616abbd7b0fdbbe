import type { IncomingMessage, ServerResponse } from 'node:http';
import ipaddr from 'ipaddr.js';
import { AppError, invalidRequest, serviceUnavailable } from '../shared/errors';
import { requestId as newRequestId } from '../shared/ids';
import { keptUrl, redactHeaders, redactUrl } from '../shared/redact';
import { combine } from '../data/write';
import { commitWithAudit, jsonbText, type AuditEntry } from '../data/repositories/audit-repository';
import { isStaleCredentials } from '../data/repositories/partners-repository';
import { rateLimitedFor } from '../data/repositories/rate-limits-repository';
import { isContention } from '../data/errors';
import type { Deps } from '../deps';
import { auditRequestBody, auditRequestHeaders, auditResponseBody } from './audit-entry';
import { discard, MAX_URL_BYTES, payloadTooLarge, readBody, requestTimeout, traceIdOf, uriTooLong } from './request-intake';
import type { Surface } from './surface';
import { RequestContext, type HandlerResult } from './types';

type Sent = HandlerResult & { headers: Record<string, string>; text: string };
type Outcome = 'committed' | 'not_written' | 'conflict' | 'stale' | 'rate_limited' | 'unavailable' | 'failed';

/**
 * One request, start to finish: refuse a URL over 8 KiB (414) or a body over 64 KiB (413), let the surface route and
 * authenticate it, judge it under the text policy and the contract, and answer; then the audit row, committed with
 * whatever the request changed (in its transaction, or in one statement with its write), and only then the response
 * is sent.
 *
 * Nothing changes without its audit record: if the row cannot be written the change rolls back. What the client
 * then hears depends on why: the database unreachable (or the audit log refusing the row) is 503 with Retry-After;
 * anything else is a bug on our side, answered 500 and audited on its own.
 *
 * A request refused before its operation ran (no valid credential, an unknown route, too large, rate limited) costs
 * a small audit row: its URL is kept whole up to 2 KiB, its body as a trace (size, digest, first KiB).
 */
export function pipeline(surface: Surface, deps: Deps) {
  return async (req: IncomingMessage & { originalUrl?: string; ip?: string }, res: ServerResponse): Promise<void> => {
    const started = process.hrtime.bigint();
    // The audit row's time: the wall clock at arrival, as the database's own clock stamps rows (never a test's clock).
    const arrived = new Date();
    const url = req.originalUrl ?? req.url ?? '/';
    const requestId = newRequestId();
    // Arrived after shutdown began: refused, not run (requests already running, or still uploading, finish).
    const arrivedDraining = deps.lifecycle.draining;
    // Read before the body: a client that goes away takes its socket with it. `req.ip` honours TRUST_PROXY (and is
    // whatever a trusted proxy wrote, so it is kept only when it is an address).
    const clientAddress = req.ip && ipaddr.isValid(req.ip) ? req.ip : req.socket?.remoteAddress;
    let early: AppError | undefined;
    let raw: Buffer = Buffer.alloc(0);
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
      requestId,
      surface: surface.name,
      deps,
      method: req.method ?? 'GET',
      url,
      headers: req.headers,
      rawBody: raw,
      clientAddress,
      traceId: traceIdOf(req.headers.traceparent),
    });

    let rateLimitedSeconds = 0;
    // What an operation committed itself (ctx.commitNow): the request then sends exactly that.
    let committedEarly: Sent | undefined;
    ctx.committer = async (r) => {
      const s = finish(r);
      const o = await commit(s, true);
      if (o === 'committed') {
        committedEarly = s;
        return 'committed';
      }
      if (o === 'not_written' || o === 'conflict') return 'lost';
      throw new CommitStopped(o, s);
    };
    let { sent, outcome } = await attempt();
    if (outcome === 'stale') {
      // The credentials changed between their lookup and the commit (a key revoked, a partner paused): nothing was
      // written; the request runs again against the database.
      ctx.restart();
      ({ sent, outcome } = await attempt());
    }
    if (outcome === 'rate_limited') {
      // The partner's bucket was empty: nothing the request did was kept; its refusal is audited on its own.
      sent = finish(surface.errorResult(ctx, surface.rateLimitedAtCommit!(ctx, rateLimitedSeconds)));
      if ((await commit(sent)) !== 'committed') sent = finish(surface.errorResult(ctx, serviceUnavailable()));
    } else if (outcome !== 'committed') {
      const failed = sent;
      deps.metrics.auditWriteFailures.inc();
      sent = finish(
        outcome === 'unavailable'
          ? surface.errorResult(ctx, serviceUnavailable())
          : surface.errorResult(ctx, new AppError('internal_error', 'An internal error occurred; it has been logged.')),
      );
      // A bug is audited on its own; if even that row cannot be written, the audit log is unavailable: 503.
      if (outcome !== 'unavailable' && (await commit(sent)) !== 'committed') sent = finish(surface.errorResult(ctx, serviceUnavailable()));
      deps.logger.error({ requestId, url: keptUrl(redactUrl(url)), status: failed.status, answered: sent.status }, 'request not committed');
    }
    send(res, sent);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    deps.metrics.observeRequest(surface.name, ctx.operationId, sent.status, seconds);
    if (sent.status === 429) deps.metrics.rateLimited.inc({ scope: ctx.partner ? 'partner' : 'anonymous' });
    deps.logger.info(
      {
        requestId,
        method: req.method,
        path: keptUrl(redactUrl(url.split('?')[0])),
        status: sent.status,
        ms: Math.round(seconds * 1000),
        ...(ctx.traceId ? { traceId: ctx.traceId } : {}),
      },
      'request',
    );

    /** Runs the request and commits its answer with the audit row (unless its operation already did). */
    async function attempt(): Promise<{ sent: Sent; outcome: Outcome }> {
      committedEarly = undefined;
      let result: HandlerResult;
      try {
        result = await surface.handle(ctx, early);
      } catch (e) {
        await abandon();
        if (e instanceof CommitStopped) return { sent: e.sent, outcome: e.outcome };
        if (committedEarly) {
          deps.logger.error({ err: e, requestId }, 'error after the request committed');
          return { sent: committedEarly, outcome: 'committed' };
        }
        if (e instanceof AppError) result = surface.errorResult(ctx, e);
        else {
          deps.logger.error({ err: e, requestId }, 'unhandled error');
          result = surface.errorResult(ctx, new AppError('internal_error', 'An internal error occurred; it has been logged.'));
        }
      }
      if (committedEarly) return { sent: committedEarly, outcome: 'committed' };
      const sent = finish(result);
      return { sent, outcome: await commit(sent) };
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
    async function commit(s: Sent, mayLose = false): Promise<Outcome> {
      const refused = !ctx.admitted || s.status === 429;
      const entry: AuditEntry = {
        surface: surface.name,
        direction: 'inbound',
        method: ctx.method.slice(0, 32),
        path: keptUrl(redactUrl(url)),
        status: s.status,
        partnerId: ctx.partner?.partnerId ?? null,
        env: ctx.env ?? null,
        requestId,
        requestHeaders: auditRequestHeaders(req.headers, refused),
        requestBody: auditRequestBody(ctx, refused),
        responseHeaders: jsonbText(redactHeaders(s.headers))!,
        responseBody: auditResponseBody(s),
        durationMs: msSince(started),
        client: clientAddress ?? null,
        operatorId: ctx.operator?.operatorId ?? null,
        traceId: ctx.traceId ?? null,
        at: arrived,
      };
      // A 429 commits nothing but its audit row, and the assertion that the caller's credentials are as it knew them:
      // a limit an operator changed meanwhile is then read afresh (the request runs again) instead of refused on.
      const write = s.status === 429 ? surface.owedAtCommit?.(ctx, true) : combine(s.write, ...ctx.owed, surface.owedAtCommit?.(ctx, false));
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
        const limited = rateLimitedFor(e);
        if (limited !== undefined && surface.rateLimitedAtCommit) {
          rateLimitedSeconds = limited;
          return 'rate_limited';
        }
        if (mayLose && s.write && isContention(e)) return 'conflict';
        deps.logger.error({ err: e, requestId }, 'the audit row (or the write with it) failed');
        return 'failed';
      }
    }
  };
}

/** A commit an operation asked for (ctx.commitNow) that cannot be decided again by it: the request ends there. */
class CommitStopped extends Error {
  constructor(
    readonly outcome: Outcome,
    readonly sent: Sent,
  ) {
    super(`commit stopped: ${outcome}`);
  }
}

const msSince = (t: bigint) => Number((process.hrtime.bigint() - t) / 1_000_000n);

function send(res: ServerResponse, r: Sent): void {
  if (res.destroyed) return;
  res.statusCode = r.status;
  res.setHeader('X-Content-Type-Options', 'nosniff');
  for (const [k, v] of Object.entries(r.headers)) res.setHeader(k, v);
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
