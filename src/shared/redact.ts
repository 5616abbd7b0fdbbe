/**
 * What may reach the audit log. Secrets (API keys, operator token, marketplace signature, callback token, webhook
 * signing secrets) never do; an API key keeps its non-secret prefix so an operator can tell which key was used.
 */
const SECRET_HEADERS = new Set([
  'authorization',
  'x-api-key',
  'privatekey',
  'x-callback-token',
  'cookie',
  'set-cookie',
  'proxy-authorization',
]);
const SECRET_FIELDS = new Set(['key', 'secret', 'token', 'private_key', 'privatekey', 'password', 'operator_token']);
const SECRET_QUERY = new Set(['token', 'key', 'privatekey', 'api_key']);
const API_KEY = /(svc_sk_(?:test|live)_[a-z0-9]+_)[A-Za-z0-9]+/g;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=]+/g;
const KEY_PREFIX = /^svc_sk_(?:test|live)_[a-z0-9]+_/;
export const REDACTED = '[REDACTED]';

/** A quick test that a JSON text holds nothing to redact, so the common case skips the deep copy. */
const MAY_HOLD_SECRET = /svc_sk_|whsec_|"(?:key|secret|token|private_key|privatekey|password|operator_token)"\s*:/i;
export const mayHoldSecrets = (jsonText: string): boolean => MAY_HOLD_SECRET.test(jsonText);

function redactString(value: string): string {
  if (!value.includes('svc_sk_') && !value.includes('whsec_')) return value;
  return value.replace(API_KEY, `$1${REDACTED}`).replace(WEBHOOK_SECRET, `whsec_${REDACTED}`);
}

export function redactHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    const lower = name.toLowerCase();
    if (!SECRET_HEADERS.has(lower)) {
      out[lower] = redactString(text);
      continue;
    }
    const keyPrefix = text.match(/svc_sk_(?:test|live)_[a-z0-9]+_/);
    const scheme = text.match(/^(Bearer|Basic)\s+/i)?.[0] ?? '';
    out[lower] = keyPrefix ? `${scheme}${keyPrefix[0]}${REDACTED}` : REDACTED;
  }
  return out;
}

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of [...params.keys()]) if (SECRET_QUERY.has(name.toLowerCase())) params.set(name, REDACTED);
  return `${url.slice(0, q)}?${params.toString()}`;
}

/** A deep copy without secrets. Keys are copied as own properties (a "__proto__" key stays a key). */
export function redactBody(value: unknown): unknown {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map(redactBody);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      let copy: unknown;
      if (SECRET_FIELDS.has(k.toLowerCase()) && typeof v === 'string') {
        const prefix = v.match(KEY_PREFIX);
        copy = prefix ? `${prefix[0]}${REDACTED}` : REDACTED;
      } else copy = redactBody(v);
      Object.defineProperty(out, k, { value: copy, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** Redacts raw bytes that are not JSON (API keys and webhook secrets are ASCII, so latin1 keeps every byte). */
export function redactBytes(raw: Buffer): Buffer {
  const text = raw.toString('latin1');
  const redacted = redactString(text);
  return redacted === text ? raw : Buffer.from(redacted, 'latin1');
}
