/**
 * What may reach the audit log. Secrets (API keys, operator token, marketplace signature, callback token) never
 * do; an API key keeps its non-secret prefix so an operator can tell which key was used.
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
export const REDACTED = '[REDACTED]';

function redactString(value: string): string {
  return value.replace(API_KEY, `$1${REDACTED}`);
}

export function redactHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (!SECRET_HEADERS.has(name.toLowerCase())) {
      out[name.toLowerCase()] = stripNul(text);
      continue;
    }
    const keyPrefix = text.match(/svc_sk_(?:test|live)_[a-z0-9]+_/);
    const scheme = text.match(/^(Bearer|Basic)\s+/i)?.[0] ?? '';
    out[name.toLowerCase()] = keyPrefix ? `${scheme}${keyPrefix[0]}${REDACTED}` : REDACTED;
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

/** Deep copy without secrets and without NUL characters (jsonb cannot store them). */
export function redactBody(value: unknown): unknown {
  if (typeof value === 'string') return stripNul(redactString(value));
  if (Array.isArray(value)) return value.map(redactBody);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = stripNul(k);
      if (SECRET_FIELDS.has(k.toLowerCase()) && typeof v === 'string') {
        const prefix = v.match(/^svc_sk_(?:test|live)_[a-z0-9]+_/);
        out[key] = prefix ? `${prefix[0]}${REDACTED}` : REDACTED;
      } else out[key] = redactBody(v);
    }
    return out;
  }
  return value;
}

function stripNul(s: string): string {
  return s.includes('\u0000') ? s.replace(/\u0000/g, '\\u0000') : s;
}
