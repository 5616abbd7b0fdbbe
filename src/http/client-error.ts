import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { appendAudit, jsonbText, unparsedBody } from '../data/repositories/audit-repository';
import { requestId as newRequestId } from '../shared/ids';
import { redactBytes } from '../shared/redact';
import type { Deps } from '../deps';

const SECRET_HEADER_LINE = /^(authorization|x-api-key|privatekey|x-callback-token|cookie|proxy-authorization)\s*:.*$/gim;

/**
 * Requests Node's HTTP parser refuses (a malformed request line or header, headers over the size limit) never reach
 * a surface. They still get an answer in the Transfers error envelope and an audit row (surface `none`), with the
 * bytes received so far, secret headers redacted. Connections that simply drop are not requests and are not audited.
 */
export function answerUnparsable(deps: Pick<Deps, 'db' | 'logger'>) {
  return (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void => {
    if (!err.code?.startsWith('HPE_') || !socket.writable) {
      socket.destroy();
      return;
    }
    const started = process.hrtime.bigint();
    const requestId = newRequestId();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({
      env: null,
      error: { code: 'invalid_request', message: `The request is not valid HTTP/1.1 (${err.code}).`, details: { reason: err.code } },
    });
    const headers = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, 'x-service-env': 'none', connection: 'close' };
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const raw = err.rawPacket ?? Buffer.alloc(0);
    const text = raw.toString('latin1').replace(SECRET_HEADER_LINE, (line) => `${line.slice(0, line.indexOf(':'))}: [REDACTED]`);
    const firstLine = text.split('\r\n', 1)[0].split(' ');
    appendAudit(deps.db, {
      surface: 'none',
      direction: 'inbound',
      method: (firstLine[0] ?? '-').slice(0, 32) || '-',
      path: (firstLine[1] ?? '-').slice(0, 2048) || '-',
      status,
      partnerId: null,
      env: null,
      requestId,
      requestHeaders: '{}',
      requestBody: raw.length ? unparsedBody(redactBytes(Buffer.from(text, 'latin1')), `not HTTP/1.1: ${err.code}`) : null,
      responseHeaders: jsonbText(headers)!,
      responseBody: body,
      durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
      error: err.code,
    }).catch((e) => deps.logger.error({ err: e, requestId }, 'could not audit an unparsable request'));
  };
}
