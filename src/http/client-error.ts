import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { appendAudit, jsonbText, unparsedBody } from '../data/repositories/audit-repository';
import { authClient } from '../domain/operators/operator-auth';
import { requestId as newRequestId } from '../shared/ids';
import { keptUrl, redactedHead, redactUrl } from '../shared/redact';
import type { Deps } from '../deps';

/**
 * Requests that never reach a surface: those Node's HTTP parser refuses (a malformed request line or header, headers
 * over the size limit), those whose head did not arrive in time (HEADERS_TIMEOUT_MS), and CONNECT, which nothing
 * routes. Each is answered in the Transfers error envelope, the connection closed (a client still trickling bytes
 * is not kept), and audited (surface `none`) with at most the first KiB received, secrets redacted. They count
 * against the client's anonymous bucket: once it is empty the answer is 429 and the row keeps nothing received.
 * Connections that simply drop are not requests and are not audited.
 */
type ClientErrorDeps = Pick<Deps, 'db' | 'logger' | 'metrics' | 'limits' | 'clock'>;

interface Refusal {
  status: number;
  code: string;
  message: string;
  reason: string;
}

export function answerUnparsable(deps: ClientErrorDeps) {
  return (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void => {
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    // A request already handed to a surface (its body late) is answered by the pipeline, which keeps its own deadline.
    const dispatched = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
    if (!(err.code?.startsWith('HPE_') || timedOut) || !socket.writable || (timedOut && dispatched)) {
      socket.destroy();
      return;
    }
    const refusal: Refusal = timedOut
      ? { status: 408, code: 'request_timeout', message: 'The request did not arrive in time.', reason: err.code! }
      : {
          status: err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400,
          code: 'invalid_request',
          message: `The request is not valid HTTP/1.1 (${err.code}).`,
          reason: err.code!,
        };
    void refuse(deps, socket, refusal, err.rawPacket ?? Buffer.alloc(0));
  };
}

/** CONNECT (Node hands it to a `connect` listener, or drops it silently without one): 405, audited. */
export function answerConnect(deps: ClientErrorDeps) {
  return (req: IncomingMessage, socket: Socket): void => {
    const head = Buffer.from(`${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`, 'latin1');
    void refuse(deps, socket, { status: 405, code: 'method_not_allowed', message: `${req.method} is not served here.`, reason: 'CONNECT' }, head);
  };
}

/** The most of what arrived that the audit row keeps. */
const KEPT_HEAD = 1024;

async function refuse(deps: ClientErrorDeps, socket: Socket, refusal: Refusal, received: Buffer): Promise<void> {
  const started = process.hrtime.bigint();
  const requestId = newRequestId();
  const client = socket.remoteAddress ?? null;
  const wait = await deps.limits.anonymous.take(authClient(client ?? undefined), deps.clock.now().getTime());
  const limited = wait > 0;
  const { status, code, message, reason } = limited
    ? { status: 429, code: 'rate_limited', message: 'Too many requests without a valid credential from this address.', reason: refusal.reason }
    : refusal;
  const body = JSON.stringify({ env: null, error: { code, message, details: { reason } } });
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': requestId,
    'x-service-env': 'none',
    'x-content-type-options': 'nosniff',
    ...(limited ? { 'retry-after': String(Math.max(1, Math.ceil(wait))) } : {}),
    connection: 'close',
  };
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
  // Answered, then closed both ways: end() alone half-closes, and a client still sending kept the socket open.
  const closeSoon = setTimeout(() => socket.destroy(), 1000).unref();
  socket.end(head + body, () => {
    clearTimeout(closeSoon);
    socket.destroy();
  });
  if (limited) deps.metrics.rateLimited.inc({ scope: 'anonymous' });
  const text = redactedHead(received.toString('latin1'), KEPT_HEAD);
  const [method, target] = text.split('\r\n', 1)[0].split(' ');
  appendAudit(deps.db, {
    surface: 'none',
    direction: 'inbound',
    method: (method ?? '-').slice(0, 32) || '-',
    path: keptUrl(redactUrl(target ?? '-')) || '-',
    status,
    partnerId: null,
    env: null,
    requestId,
    requestHeaders: '{}',
    // Over its bucket, a client's refusals keep nothing of what it sent.
    requestBody: received.length && !limited ? unparsedBody(Buffer.from(text, 'latin1'), `not HTTP/1.1: ${reason}`) : null,
    client,
    responseHeaders: jsonbText(headers)!,
    responseBody: body,
    durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
    error: reason,
  }).catch((e) => {
    deps.metrics.auditWriteFailures.inc();
    deps.logger.error({ err: e, requestId }, 'could not audit an unparsable request');
  });
}
