import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { appendAudit, jsonbText, unparsedBody } from '../data/repositories/audit-repository';
import { requestId as newRequestId } from '../shared/ids';
import { keptUrl, redactText, redactUrl } from '../shared/redact';
import type { Deps } from '../deps';

/**
 * Requests Node's HTTP parser refuses (a malformed request line or header, headers over the size limit) never reach
 * a surface. They still get an answer in the Transfers error envelope and an audit row (surface `none`), with the
 * bytes received so far, secrets redacted. A request whose head or body did not arrive in time (HEADERS_TIMEOUT_MS,
 * REQUEST_TIMEOUT_MS) is answered 408 the same way. Connections that simply drop are not requests and are not audited.
 */
export function answerUnparsable(deps: Pick<Deps, 'db' | 'logger' | 'metrics'>) {
  return (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void => {
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    // A request already handed to a surface (its body late) is answered and audited by the pipeline, which sees
    // the connection close under it.
    const dispatched =
      (socket as Socket & { _httpMessage?: unknown })._httpMessage !== undefined && (socket as Socket & { _httpMessage?: unknown })._httpMessage !== null;
    if (!(err.code?.startsWith('HPE_') || timedOut) || !socket.writable || (timedOut && dispatched)) {
      socket.destroy();
      return;
    }
    const started = process.hrtime.bigint();
    const requestId = newRequestId();
    const status = timedOut ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({
      env: null,
      error: timedOut
        ? { code: 'request_timeout', message: 'The request did not arrive in time.', details: { reason: err.code } }
        : { code: 'invalid_request', message: `The request is not valid HTTP/1.1 (${err.code}).`, details: { reason: err.code } },
    });
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': requestId,
      'x-service-env': 'none',
      'x-content-type-options': 'nosniff',
      connection: 'close',
    };
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const raw = (err.rawPacket ?? Buffer.alloc(0)).subarray(0, 1024);
    const text = redactText(raw.toString('latin1'));
    const firstLine = text.split('\r\n', 1)[0].split(' ');
    appendAudit(deps.db, {
      surface: 'none',
      direction: 'inbound',
      method: (firstLine[0] ?? '-').slice(0, 32) || '-',
      path: keptUrl(redactUrl(firstLine[1] ?? '-')) || '-',
      status,
      partnerId: null,
      env: null,
      requestId,
      requestHeaders: '{}',
      requestBody: raw.length ? unparsedBody(Buffer.from(text, 'latin1'), `not HTTP/1.1: ${err.code}`) : null,
      client: socket.remoteAddress ?? null,
      responseHeaders: jsonbText(headers)!,
      responseBody: body,
      durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
      error: err.code,
    }).catch((e) => {
      deps.metrics.auditWriteFailures.inc();
      deps.logger.error({ err: e, requestId }, 'could not audit an unparsable request');
    });
  };
}
