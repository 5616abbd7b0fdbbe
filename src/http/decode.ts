import { invalidRequest } from '../shared/errors';

/**
 * The text policy, applied to every inbound body, path and query before any handler, validator or the database
 * sees them: text is UTF-8 without NUL characters or lone UTF-16 surrogates, JSON numbers are finite, and JSON
 * nests at most MAX_DEPTH levels. A violation is 400 invalid_request naming the field (`body`, `path`, `query`,
 * a path or query parameter, or the JSON field such as `passenger.first_name`).
 */
export const MAX_DEPTH = 32;

export interface FieldProblem {
  field: string;
  message: string;
}

const NUL = 'must not contain NUL characters (U+0000)';
const SURROGATE = 'must be valid Unicode text (it contains a lone UTF-16 surrogate)';

/** Why `s` breaks the text policy, or null. */
export function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return NUL;
  if (!s.isWellFormed()) return SURROGATE;
  return null;
}

/** A field name as the client wrote it, made printable (control characters and lone surrogates escaped). */
export function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.isWellFormed() ? escaped : escaped.toWellFormed().replace(/\ufffd/g, '\\ufffd');
}

const join = (path: string, key: string) => (path ? `${path}.${printable(key)}` : printable(key));

/** Walks a parsed JSON value; returns the first policy violation. Iterative-safe: stops at MAX_DEPTH. */
export function jsonProblem(value: unknown, path = '', depth = 1): FieldProblem | null {
  if (typeof value === 'string') {
    const p = textProblem(value);
    return p ? { field: path || 'body', message: p } : null;
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? null : { field: path || 'body', message: 'is out of range (JSON numbers must be finite doubles)' };
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_DEPTH) return { field: 'body', message: `nests deeper than ${MAX_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const p = jsonProblem(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const kp = textProblem(key);
    if (kp) return { field: join(path, key), message: `has a name that ${kp}` };
    const p = jsonProblem((value as Record<string, unknown>)[key], join(path, key), depth + 1);
    if (p) return p;
  }
  return null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

export interface DecodedBody {
  value: unknown;
  /** The body as text (UTF-8, BOM removed). */
  text: string;
}

/** The body as JSON under the text policy; undefined when there is none. Throws invalid_request. */
export function decodeBody(raw: Buffer, contentType: string | undefined): DecodedBody | undefined {
  if (raw.length === 0) return undefined;
  if (!isJsonContentType(contentType)) {
    throw invalidRequest('Send the body as JSON with Content-Type: application/json.', [
      { field: 'Content-Type', message: `must be application/json, got ${contentType ? printable(contentType) : 'none'}` },
    ]);
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw invalidRequest('The body is not valid UTF-8 text.', [{ field: 'body', message: 'must be UTF-8 encoded text' }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalidRequest(`The body is not valid JSON: ${printable((e as Error).message)}`, [{ field: 'body', message: 'must be valid JSON' }]);
  }
  const problem = jsonProblem(value);
  if (problem) throw invalidRequest(`The request is invalid: ${problem.field} ${problem.message}.`, [problem]);
  return { value, text };
}

/** Strict percent-decoding of one URL component (path segment or query part): UTF-8, no NUL. */
export function decodeComponent(raw: string, field: string, plusIsSpace = false): string {
  let s: string;
  try {
    s = decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, ' ') : raw);
  } catch {
    throw invalidRequest(`The request is invalid: ${field} is not valid percent-encoded UTF-8.`, [{ field, message: 'must be valid percent-encoded UTF-8' }]);
  }
  const p = textProblem(s);
  if (p) throw invalidRequest(`The request is invalid: ${field} ${p}.`, [{ field, message: p }]);
  return s;
}

/** The query string as name → value(s), strictly decoded. */
export function decodeQuery(rawQuery: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!rawQuery) return out;
  for (const part of rawQuery.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq), 'query', true);
    const value = decodeComponent(eq < 0 ? '' : part.slice(eq + 1), printable(name), true);
    const prev = out[name];
    const next = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    Object.defineProperty(out, name, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
