import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import ipaddr from 'ipaddr.js';
import { AppError, invalidRequest, serviceUnavailable } from '../shared/errors';
import { requestId as newRequestId } from '../shared/ids';
import { keptUrl, mayHoldSecrets, redactBody, redactBytes, redactHeaders, redactText, redactUrl } from '../shared/redact';
import { combine } from '../data/write';
import { commitWithAudit, jsonbText, unparsedBody, type AuditEntry } from '../data/repositories/audit-repository';
import { isStaleCredentials } from '../data/repositories/partners-repository';
import { rateLimitedFor } from '../data/repositories/rate-limits-repository';
import { isContention } from '../data/errors';
import type { Deps } from '../deps';
import { decodeBody } from './decode';
import type { Surface } from './surface';
import { RequestContext, type Document, type HandlerResult } from './types';

/** A URL longer than this is answered 414 without routing it (Node's own limit on a request head is 16 KiB). */
export const MAX_URL_BYTES = 8 * 1024;
/** What a refused request's audit row keeps of its body: its size, its SHA-256 and at most this much of its start. */
export const REFUSED_BODY_HEAD = 1024;
/** After answering 413 the rest of the body is read and dropped, up to this much; then the connection is cut. */
const DISCARD_AT_MOST = 8 * 1024 * 1024;

const payloadTooLarge = (limit: number) =>
  new AppError('payload_too_large', `The request body is larger than ${limit / 1024} KiB.`, { limit_bytes: limit });
const uriTooLong = () =>
  new AppError('uri_too_long', `The request's path and query are longer than ${MAX_URL_BYTES / 1024} KiB.`, { limit_bytes: MAX_URL_BYTES });

interface ReadBody {
  bytes: Buffer;
  /** The body was larger than the limit: `bytes` holds what arrived before the answer. */
  over: boolean;
  /** The client went away before the body ended. */
  aborted: boolean;
}

/** Reads the rest of a body we will not use, up to DISCARD_AT_MOST, so the answer reaches a client still sending. */
function discard(req: IncomingMessage, already = 0): void {
  let dropped = already;
  req.on('data', (c: Buffer) => {
    dropped += c.length;
    if (dropped > DISCARD_AT_MOST) req.destroy();
  });
  req.resume();
}

/** The body up to `limit` bytes. Whether it came with Content-Length or chunked, a larger one stops at the limit. */
function readBody(req: IncomingMessage, limit: number): Promise<ReadBody> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    discard(req);
    return Promise.resolve({ bytes: Buffer.alloc(0), over: true, aborted: false });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (r: Omit<ReadBody, 'bytes'>) => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onData);
      resolve({ ...r, bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) });
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size > limit) {
        settle({ over: true, aborted: false });
        discard(req, size);
      }
    };
    req.on('data', onData);
    req.once('end', () => settle({ over: false, aborted: false }));
    req.once('error', () => settle({ over: false, aborted: true }));
    req.once('close', () => settle({ over: false, aborted: !req.complete }));
  });
}

/** The trace id of a W3C `traceparent` (version 00), or undefined when there is none or it is malformed. */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header.trim());
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]) || /^0+$/.test(m[3])) return undefined;
  return m[2];
}

type Sent = HandlerResult & { headers: Record<string, string>; text: string };
type Outcome = 'committed' | 'not_written' | 'conflict' | 'stale' | 'rate_limited' | 'unavailable' | 'failed';

/**
 * What the audit row of a refused request keeps of its body: `{"$refused": {"bytes", "sha256", "head"}}`, the head
 * being at most its first KiB, as text with secrets redacted (or base64 when it is not text).
 */
function refusedBody(raw: Buffer, declared: string | string[] | undefined): string | null {
  if (raw.length === 0 && declared === undefined) return null;
  const trace: Record<string, unknown> = { bytes: raw.length, sha256: createHash('sha256').update(raw).digest('hex') };
  if (typeof declared === 'string' && Number(declared) !== raw.length) trace.declared_bytes = Number(declared) || declared.slice(0, 32);
  const head = raw.subarray(0, REFUSED_BODY_HEAD);
  if (head.length) {
    const text = utf8Head(head);
    if (text === null) trace.head_base64 = redactBytes(head).toString('base64');
    else trace.head = redactText(text);
  }
  return jsonbText({ $refused: trace });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** The head as UTF-8 text (a character cut at its end dropped), or null when it is not text. */
function utf8Head(head: Buffer): string | null {
  for (let cut = 0; cut <= 3 && cut < head.length; cut += 1) {
    try {
      const text = utf8.decode(head.subarray(0, head.length - cut));
      return text.includes('\u0000') ? null : text;
    } catch {
      // a multi-byte character cut at the end, or not UTF-8 at all
    }
  }
  return null;
}

/**
 * The request body as the audit log keeps it: for a request refused before its operation, a trace (refusedBody);
 * otherwise the JSON value (redacted) when the body is JSON under the text policy, or the bytes themselves in the
 * `$unparsed` form (see audit-repository.unparsedBody).
 */
function auditRequestBody(ctx: RequestContext, refused: boolean): string | null {
  const raw = ctx.rawBody;
  if (refused) return refusedBody(raw, ctx.headers['content-length']);
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

/** Header values of a refused request are kept up to this many characters each. */
const REFUSED_HEADER_VALUE = 256;

function auditRequestHeaders(headers: Record<string, unknown>, refused: boolean): string {
  const redacted = redactHeaders(headers);
  if (refused) {
    for (const [k, v] of Object.entries(redacted)) if (v.length > REFUSED_HEADER_VALUE) redacted[k] = `${v.slice(0, REFUSED_HEADER_VALUE)}…[cut: ${v.length} characters]`;
  }
  return jsonbText(redacted)!;
}

function auditResponseBody(text: string, document?: Document): string | null {
  if (document) return jsonbText({ $document: document.contentType, bytes: document.bytes.length, sha256: createHash('sha256').update(document.bytes).digest('hex') });
  if (!text) return null;
  if (!mayHoldSecrets(text)) return text;
  return jsonbText(redactBody(JSON.parse(text)));
}

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
      const body = await readBody(req, deps.config.maxBodyBytes);
      raw = body.bytes;
      if (body.over) {
        early = payloadTooLarge(deps.config.maxBodyBytes);
        res.shouldKeepAlive = false;
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
      { requestId, method: req.method, path: keptUrl(redactUrl(url.split('?')[0])), status: sent.status, ms: Math.round(seconds * 1000), ...(ctx.traceId ? { traceId: ctx.traceId } : {}) },
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
        responseBody: auditResponseBody(s.text, s.document),
        durationMs: msSince(started),
        client: clientAddress ?? null,
        operatorId: ctx.operator?.operatorId ?? null,
        traceId: ctx.traceId ?? null,
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
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(r.text));
  }
  res.setHeader('Cache-Control', 'no-store');
  res.end(r.text);
}
