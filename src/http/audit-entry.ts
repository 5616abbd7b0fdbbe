import { createHash } from 'node:crypto';
import { AppError } from '../shared/errors';
import { mayHoldSecrets, redactBody, redactBytes, redactedHead, redactHeaders, redactText } from '../shared/redact';
import { jsonbText, unparsedBody } from '../data/repositories/audit-repository';
import { decodeBody } from './decode';
import { PERSONAL_HINT } from '../shared/personal-data';
import { daySubject, pathSubject, sealPersonal, topSubject } from '../domain/kernel/seal-personal';
import type { Document, RequestContext } from './types';

/**
 * What an inbound request's audit row keeps of the exchange. An admitted request keeps its body (the JSON value with
 * secrets redacted, or its bytes as `$unparsed`) and its headers; a request refused before its operation keeps a
 * trace of its body and its header values cut short, so a refused request never stores more than a small trace.
 */

/** What a refused request's audit row keeps of its body: its size, its SHA-256 and at most this much of its start. */
export const REFUSED_BODY_HEAD = 1024;

/**
 * What the audit row of a refused request keeps of its body: `{"$refused": {"bytes", "sha256", "head"}}`, the head
 * being at most its first KiB, as text with secrets redacted (or base64 when it is not text).
 */
function refusedBody(raw: Buffer, declared: string | string[] | undefined): string | null {
  if (raw.length === 0 && declared === undefined) return null;
  const trace: Record<string, unknown> = { bytes: raw.length, sha256: createHash('sha256').update(raw).digest('hex') };
  if (typeof declared === 'string' && Number(declared) !== raw.length) trace.declared_bytes = Number(declared) || declared.slice(0, 32);
  // A little past the mark, so a secret crossing it is recognised whole before the head is cut.
  const head = raw.subarray(0, REFUSED_BODY_HEAD + 512);
  if (head.length) {
    const text = utf8Head(head);
    if (text === null) trace.head_base64 = redactBytes(head.subarray(0, REFUSED_BODY_HEAD)).toString('base64');
    else trace.head = redactedHead(text, REFUSED_BODY_HEAD);
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

/** A body as the audit row keeps it: JSON text, or a JSON value still to be sealed and serialised. */
type Kept = { text: string | null; value?: undefined } | { value: unknown; text?: string };

/**
 * The request body as the audit log keeps it: for a request refused before its operation, a trace (refusedBody);
 * otherwise the JSON value (redacted) when the body is JSON under the text policy, or the bytes themselves in the
 * `$unparsed` form (see audit-repository.unparsedBody).
 */
function requestBody(ctx: RequestContext, refused: boolean): Kept {
  const raw = ctx.rawBody;
  if (refused) return { text: refusedBody(raw, ctx.headers['content-length']) };
  if (raw.length === 0) return { text: null };
  const contentType = ctx.headers['content-type'] as string | undefined;
  let decoded = ctx.decodedBody;
  if (!decoded) {
    try {
      decoded = decodeBody(raw, contentType);
    } catch (e) {
      const reason = e instanceof AppError ? (e.details.fields as Array<{ field: string; message: string }> | undefined)?.[0] : undefined;
      return { text: unparsedBody(redactBytes(raw), reason ? `${reason.field} ${reason.message}` : 'not JSON') };
    }
  }
  if (!decoded) return { text: null };
  return { value: mayHoldSecrets(decoded.text) ? redactBody(decoded.value) : decoded.value };
}

/** Header values of a refused request are kept up to this many characters each… */
const REFUSED_HEADER_VALUE = 256;
/**
 * …and only these headers (what tells who sent it, how and what): a refused request costs a small row however many
 * headers it sent; the others are counted (`$omitted`).
 */
const REFUSED_HEADERS_KEPT = new Set([
  'host',
  'user-agent',
  'content-type',
  'content-length',
  'transfer-encoding',
  'authorization',
  'x-api-key',
  'idempotency-key',
  'origin',
  'referer',
  'x-forwarded-for',
  'forwarded',
  'traceparent',
  'sandbox-simulate',
  'x-reference-console',
]);

export function auditRequestHeaders(headers: Record<string, unknown>, refused: boolean): string {
  if (!refused) return jsonbText(redactHeaders(headers))!;
  const kept: Record<string, unknown> = {};
  let omitted = 0;
  let omittedBytes = 0;
  for (const [k, v] of Object.entries(headers)) {
    if (REFUSED_HEADERS_KEPT.has(k)) kept[k] = v;
    else {
      omitted += 1;
      omittedBytes += k.length + String(v).length;
    }
  }
  const redacted: Record<string, unknown> = redactHeaders(kept);
  for (const [k, v] of Object.entries(redacted) as Array<[string, string]>)
    if (v.length > REFUSED_HEADER_VALUE) redacted[k] = `${v.slice(0, REFUSED_HEADER_VALUE)}…[cut: ${v.length} characters]`;
  if (omitted) redacted.$omitted = { headers: omitted, bytes: omittedBytes };
  return jsonbText(redacted)!;
}

/** What the pipeline answered, as the audit row keeps it. */
export interface Answered {
  text: string;
  body?: unknown;
  document?: Document;
  contentType?: string;
  auditDigest?: boolean;
  /** What the audit row keeps instead of the answer sent (see HandlerResult.auditBody). */
  auditBody?: unknown;
}

function responseBody(answered: Answered): Kept {
  const r = answered.auditBody === undefined ? answered : { ...answered, body: answered.auditBody, text: JSON.stringify(answered.auditBody) };
  const { text, document, contentType } = r;
  if (document)
    return {
      text: jsonbText({ $document: document.contentType, bytes: document.bytes.length, sha256: createHash('sha256').update(document.bytes).digest('hex') }),
    };
  if (!text) return { text: null };
  if (r.auditDigest) return { text: echoDigest(text, r.body) };
  // Text that is not JSON (a CSV statement) is kept whole, as a JSON string.
  if (contentType) return { text: jsonbText(mayHoldSecrets(text) ? redactText(text) : text) };
  const secrets = mayHoldSecrets(text);
  if (!PERSONAL_HINT.test(text)) return { text: secrets ? jsonbText(redactBody(JSON.parse(text))) : text };
  // The answer's value (bytes sent without the value they were made from, a replay's, are parsed), and its text
  // when that is what to keep.
  const value: unknown = secrets ? redactBody(JSON.parse(text)) : r.body !== undefined ? r.body : JSON.parse(text);
  return secrets ? { value } : { value, text };
}

/**
 * The request's and the answer's bodies as the audit row keeps them, personal values sealed with their subject's
 * data key (see domain/privacy). Whose data they hold: the booking, order, job or quote the bodies name, else the
 * one the path names, else the day's. `newKeys`: the keys offered for new subjects (`dataKeys`) that sealed
 * something, to store with the row.
 */
export async function auditBodies(ctx: RequestContext, s: Answered & { dataKeys?: ReadonlyMap<string, Buffer>; subject?: string }, refused: boolean) {
  const req = requestBody(ctx, refused);
  const res = responseBody(s);
  if (req.value === undefined && res.value === undefined)
    return { requestBody: req.text ?? null, responseBody: res.text ?? null, subjects: null, newKeys: NONE };
  const subject = s.subject ?? topSubject(res.value ?? s.body) ?? topSubject(req.value) ?? pathSubject(ctx.url) ?? daySubject(ctx.arrivedAt);
  const { values, subjects, used } = await sealPersonal(
    ctx.deps.dataKeys,
    ctx.sql,
    [
      { value: req.value, subject },
      { value: res.value, subject },
    ],
    s.dataKeys,
  );
  const kept = (k: Kept, v: unknown) => (k.value === undefined ? (k.text ?? null) : v === k.value && k.text !== undefined ? k.text : jsonbText(v));
  return { requestBody: kept(req, values[0]), responseBody: kept(res, values[1]), subjects: subjects.length ? subjects : null, newKeys: used };
}

const NONE: ReadonlyMap<string, Buffer> = new Map();

/**
 * An answer that echoes stored exchanges (the audit log, a partner's request log) is audited as its size and digest:
 * kept whole, each read would store everything it read again, and the next read twice that. `rows`: the entries of
 * its top-level lists (1 for a single entry).
 */
function echoDigest(text: string, body: unknown): string {
  let rows = 0;
  if (body && typeof body === 'object') for (const v of Object.values(body)) if (Array.isArray(v)) rows += v.length;
  return jsonbText({
    $omitted: 'echoes stored exchanges',
    rows: rows || 1,
    bytes: Buffer.byteLength(text),
    sha256: createHash('sha256').update(text).digest('hex'),
  })!;
}
