import type { IncomingMessage } from 'node:http';
import { AppError } from '../shared/errors';

/**
 * Reading a request before any surface sees it: the URL and body limits (a body read up to its limit whether it
 * came with Content-Length or chunked, the rest drained so the answer reaches a client still sending), and the
 * caller's W3C trace id.
 */

/** A URL longer than this is answered 414 without routing it (Node's own limit on a request head is 16 KiB). */
export const MAX_URL_BYTES = 8 * 1024;
/** After answering 413 the rest of the body is read and dropped, up to this much; then the connection is cut. */
const DISCARD_AT_MOST = 8 * 1024 * 1024;

export const payloadTooLarge = (limit: number) =>
  new AppError('payload_too_large', `The request body is larger than ${limit / 1024} KiB.`, { limit_bytes: limit });
export const uriTooLong = () =>
  new AppError('uri_too_long', `The request's path and query are longer than ${MAX_URL_BYTES / 1024} KiB.`, { limit_bytes: MAX_URL_BYTES });

interface ReadBody {
  bytes: Buffer;
  /** The body was larger than the limit: `bytes` holds what arrived before the answer. */
  over: boolean;
  /** The client went away before the body ended. */
  aborted: boolean;
  /** The body did not arrive within its deadline: answer 408 and close the connection. */
  timedOut?: boolean;
}

export const requestTimeout = () => new AppError('request_timeout', 'The request body did not arrive in time.', {});

/** Reads the rest of a body we will not use, up to DISCARD_AT_MOST, so the answer reaches a client still sending. */
export function discard(req: IncomingMessage, already = 0): void {
  let dropped = already;
  req.on('data', (c: Buffer) => {
    dropped += c.length;
    if (dropped > DISCARD_AT_MOST) req.destroy();
  });
  req.resume();
}

const NO_BODY: ReadBody = Object.freeze({ bytes: Buffer.alloc(0), over: false, aborted: false });

/**
 * The body up to `limit` bytes. Whether it came with Content-Length or chunked, a larger one stops at the limit. A
 * body still arriving after `deadlineMs` is cut there (`timedOut`): the pipeline answers it 408 and closes.
 */
export function readBody(req: IncomingMessage, limit: number, deadlineMs: number): Promise<ReadBody> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    discard(req);
    return Promise.resolve({ bytes: Buffer.alloc(0), over: true, aborted: false });
  }
  // No Content-Length and no Transfer-Encoding: HTTP/1.1 says there is no body (a GET, most reads). Nothing to wait
  // for; Node drains the empty stream when the answer is sent.
  if (declared === 0 && req.headers['transfer-encoding'] === undefined) return Promise.resolve(NO_BODY);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const timer = setTimeout(() => settle({ over: false, aborted: false, timedOut: true }), deadlineMs);
    const settle = (r: Omit<ReadBody, 'bytes'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
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
