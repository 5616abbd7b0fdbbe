import { createHash } from 'node:crypto';

/**
 * What may reach the audit log and the logs. Secrets never do, wherever a client put them: a header, a path
 * segment, any query parameter, a JSON field, the text of a body we could not parse, a log line. Two nets catch them:
 *
 * - shapes: our API keys (`svc_sk_…`, which keep their non-secret prefix so an operator can tell which key was
 *   used), webhook signing secrets (`whsec_…`), operator tokens (`op_…`) and driver tokens (`drv_…` and 32 or more
 *   characters: a driver id is `drv_` and 10);
 * - values: the configured secrets that have no shape of their own (OPERATOR_TOKEN, MARKETPLACE_PRIVATE_KEY,
 *   MARKETPLACE_CALLBACK_TOKEN), registered at start (registerSecret);
 * - in paths, URLs and log lines: passengers' tracking links (`/t/` and a token), by shape (redactTrackingLinks);
 *
 * and, by name, headers, query parameters and JSON fields that carry credentials whatever their value.
 */
export const REDACTED = '[REDACTED]';

const SHAPES: Array<[RegExp, string]> = [
  [/(svc_sk_(?:test|live)_[a-z0-9]+_)[A-Za-z0-9]+/g, `$1${REDACTED}`],
  [/whsec_[A-Za-z0-9+/=]+/g, `whsec_${REDACTED}`],
  [/(?<![A-Za-z0-9_])op_[A-Za-z0-9]{32,}/g, `op_${REDACTED}`],
  [/(?<![A-Za-z0-9_])drv_[A-Za-z0-9]{32,}/g, `drv_${REDACTED}`],
];
/** A cheap first look: text without any of these holds no secret of a known shape. */
const SHAPE_HINT = /svc_sk_|whsec_|op_[A-Za-z0-9]{32}|drv_[A-Za-z0-9]{32}/;
/** The longest text a shape needs to be recognised: an API key (`svc_sk_live_`, its 12-character id, `_`, 40). */
const LONGEST_SHAPE = 72;

const SECRET_NAME =
  /^(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|apikey|x-apikey|privatekey|private-key|private_key|x-callback-token|key|secret|token|password|passwd|pwd|signature|sig|client_secret|credentials?)$|(?:^|[-_])(?:token|secret|password|apikey|api[-_]key|private[-_]?key|access[-_]key)$/i;
/** Whether a header, query parameter or JSON field of this name carries a credential, whatever its value. */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

const KEY_PREFIX = /^(?:Bearer\s+|Basic\s+)?svc_sk_(?:test|live)_[a-z0-9]+_/i;

const literals = new Set<string>();
let longestLiteral = 0;
/** A configured secret without a shape of its own; every occurrence is redacted from then on (8 characters or more). */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 8) {
    literals.add(value);
    longestLiteral = Math.max(longestLiteral, value.length);
  }
}

function hasLiteral(text: string): boolean {
  for (const s of literals) if (text.includes(s)) return true;
  return false;
}

/** Whether a text holds something to redact (by shape or value; names are the callers' business). */
export const holdsSecret = (text: string): boolean => SHAPE_HINT.test(text) || hasLiteral(text);

/** A text with every secret of a known shape or value replaced. */
export function redactString(value: string): string {
  if (!holdsSecret(value)) return value;
  let out = value;
  for (const [shape, replacement] of SHAPES) out = out.replace(shape, replacement);
  for (const s of literals) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * A quick test that a JSON text holds nothing to redact, so the common case skips the deep copy: a field name that
 * is, or ends in `-`/`_` and, one of these words. It matches every such name (and a few more, which only cost the
 * slow way) in one linear scan: no backtracking over each string's text.
 */
const SECRET_FIELD_IN_JSON = /["_-](?:key|secret|token|password|passwd|pwd|signature|sig|apikey|privatekey|credentials?|authorization|cookie)"\s*:/i;
// A `\u` escape can spell any of the above (`"\u0073vc_sk_…"`, `"\u0074oken": …`) where the raw text shows none of it: such
// a body goes the slow way (its parsed value redacted), as does one that shows a secret; any other pays a few scans.
export const mayHoldSecrets = (jsonText: string): boolean => jsonText.includes('\\u') || SECRET_FIELD_IN_JSON.test(jsonText) || holdsSecret(jsonText);

/** A credential's replacement: an API key keeps its prefix (and scheme), anything else is gone whole. */
function redactCredential(text: string): string {
  const prefix = KEY_PREFIX.exec(text);
  return prefix ? `${prefix[0]}${REDACTED}` : REDACTED;
}

export function redactHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : JSON.stringify(value);
    const lower = name.toLowerCase();
    out[lower] = isSecretName(lower) ? redactCredential(text) : redactString(text);
  }
  return out;
}

/** A percent-encoded text decoded, or as it is when it does not decode (`%ED%A0%80`, a lone surrogate). */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** One path segment or query component: redacted as written, then, when its percent-decoded form still shows a secret, that form redacted. */
function redactComponent(raw: string): string {
  const direct = redactString(raw);
  if (!direct.includes('%')) return direct;
  const decoded = safeDecode(direct);
  return holdsSecret(decoded) ? encodeURIComponent(redactString(decoded)).replace(/%5B(REDACTED)%5D/g, '[$1]') : direct;
}

/**
 * A path and query as the audit log and the logs keep them: secrets in path segments (a key pasted where a booking
 * reference goes), percent-encoded or not, and in any query parameter's value redacted; parameters named like
 * credentials (`apikey`, `access_token`, `token`, …) redacted whatever they hold. Everything else stays byte for
 * byte as received.
 */
/**
 * Query parameters that name a traveller (the export's search: GET /ops/v1/privacy/subjects?email=): their values
 * never reach the audit log or a log line. The fields of bodies are the domain's map (shared/personal-data).
 */
const PERSONAL_QUERY = new Set(['email', 'phone', 'first_name', 'last_name', 'name']);
export const PERSONAL = '[personal]';

export function redactUrl(raw: string): string {
  const url = redactTrackingLinks(raw);
  const q = url.indexOf('?');
  let path = redactString(q < 0 ? url : url.slice(0, q));
  if (path.includes('%')) path = path.split('/').map(redactComponent).join('/');
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return redactComponent(pair);
      const name = pair.slice(0, eq);
      const decoded = safeDecode(name.replace(/\+/g, ' '));
      if (isSecretName(decoded)) return `${name}=${encodeURIComponent(REDACTED)}`;
      if (PERSONAL_QUERY.has(decoded.toLowerCase())) return `${name}=${encodeURIComponent(PERSONAL)}`;
      return `${redactComponent(name)}=${redactComponent(pair.slice(eq + 1))}`;
    })
    .join('&');
  return `${path}?${query}`;
}

/** A deep copy without secrets. Keys are copied as own properties (a "__proto__" key stays a key). */
export function redactBody(value: unknown): unknown {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map(redactBody);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const copy = isSecretName(k) && typeof v === 'string' ? redactCredential(v) : redactBody(v);
      Object.defineProperty(out, redactString(k), { value: copy, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

// `"token": "…"` in JSON text, `token=…` in a form, `Token: …` as a header line, in text we could not parse.
const NAMED_IN_JSON = /("(?:[^"\\]|\\.)*"\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
const NAMED_IN_FORM = /(^|[&?;\s])([A-Za-z0-9_.-]+)(\s*=\s*)([^&;\s"]+)/g;
const NAMED_HEADER_LINE = /^([A-Za-z0-9_-]+)([ \t]*:[ \t]*)([^\r\n]*)/gm;

/** `\u0073` → `s`, for the characters secrets and names are made of, so an escape hides nothing from the nets. */
function unescapedAscii(text: string): string {
  if (!text.includes('\\u')) return text;
  return text.replace(/\\u00([2-7][0-9a-fA-F])/g, (all, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /[\w+/=-]/.test(c) ? c : all;
  });
}

/** Text that is not JSON we could parse (a broken body, the head of a refused one): shapes, values and named fields. */
export function redactText(text: string): string {
  let out = redactString(unescapedAscii(text));
  out = out.replace(NAMED_IN_JSON, (all, head: string, _v: string) => (isSecretName(head.slice(1, head.lastIndexOf('"'))) ? `${head}"${REDACTED}"` : all));
  out = out.replace(NAMED_IN_FORM, (all, lead: string, name: string, sep: string) => (isSecretName(name) ? `${lead}${name}${sep}${REDACTED}` : all));
  out = out.replace(NAMED_HEADER_LINE, (all, name: string, sep: string) => (isSecretName(name) ? `${name}${sep}${REDACTED}` : all));
  return out;
}

/** Redacts raw bytes that are not JSON (secrets are ASCII, so latin1 keeps every other byte as it was). */
export function redactBytes(raw: Buffer): Buffer {
  const text = raw.toString('latin1');
  const redacted = redactText(text);
  return redacted === text ? raw : Buffer.from(redacted, 'latin1');
}

/** Paths and query strings longer than this are kept cut, with their length and digest. */
export const MAX_KEPT_URL = 2048;

/**
 * A (redacted) URL as the audit log and the logs keep it: whole up to 2 KiB (of UTF-8, as the database stores it),
 * else its first 2 KiB, its length and its SHA-256 (an index row holds at most about 2.7 KB).
 */
export function keptUrl(redactedUrl: string): string {
  const bytes = Buffer.byteLength(redactedUrl, 'utf8');
  if (bytes <= MAX_KEPT_URL) return redactedUrl;
  let head = Buffer.from(redactedUrl, 'utf8').subarray(0, MAX_KEPT_URL).toString('utf8');
  if (head.endsWith('\ufffd')) head = head.slice(0, -1);
  const sha = createHash('sha256').update(redactedUrl, 'utf8').digest('hex');
  return `${head}…[cut: ${bytes} bytes, sha256 ${sha}]`;
}

/**
 * A passenger's tracking link (`/t/{token}`): 24 base62 characters, or an older booking's 64 hex digits (two UUIDs),
 * also percent-encoded in a query value. The token is the only key to the ride, so paths, URLs and log lines keep
 * its first 4 characters (enough for support to tell links apart, 120 bits short of the link) and nothing more.
 */
const TRACKING_LINK = /((?:^|\/|%2[Ff])t(?:\/|%2[Ff]))([A-Za-z0-9]{4})(?:[A-Za-z0-9]{20}|[0-9a-f]{60})(?![A-Za-z0-9])/g;

export const redactTrackingLinks = (text: string): string =>
  text.includes('t/') || text.includes('t%2') ? text.replace(TRACKING_LINK, `$1$2${REDACTED}`) : text;

/** The characters a secret is made of: a cut inside a run of them may leave a secret's start. */
const SECRET_RUN_END = /[A-Za-z0-9_+/=-]+$/;
const SECRET_CHAR = /^[A-Za-z0-9_+/=-]/;
/** A JSON string value left open at the end of a text, with its field name. */
const OPEN_JSON_VALUE = /"((?:[^"\\]|\\.)*)"\s*:\s*"(?:[^"\\]|\\.)*$/;

/**
 * Text redacted, then cut to at most `max` characters, so that no part of a secret survives at the cut: the text is
 * redacted over `max` plus the longest secret (shape or configured value) past the cut mark, and more when
 * redactions before the mark shortened it, so a secret crossing the mark is caught whole; then, at the cut, a
 * trailing run of secret characters split by it (at most that longest secret), and a credential field's value left
 * open, are dropped. For the heads of bodies kept cut (the audit log's traces).
 */
export function redactedHead(text: string, max: number): string {
  const reach = Math.max(LONGEST_SHAPE, longestLiteral) + 1;
  let end = Math.min(text.length, max + reach);
  let redacted = redactText(text.slice(0, end));
  while (redacted.length < max + reach && end < text.length) {
    end = Math.min(text.length, end + (max + reach - redacted.length));
    redacted = redactText(text.slice(0, end));
  }
  if (redacted.length <= max) return redacted;
  let head = redacted.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  // What the cut split: a run that may be a secret's first characters, not long enough to be recognised.
  if (SECRET_CHAR.test(redacted.slice(head.length))) {
    const run = SECRET_RUN_END.exec(head);
    if (run) head = head.slice(0, head.length - Math.min(run[0].length, reach));
  }
  // A form field or header line named like a credential, cut open: redactText sees it whole now.
  head = redactText(head);
  const open = OPEN_JSON_VALUE.exec(head);
  if (open && isSecretName(open[1])) head = `${head.slice(0, open.index)}"${open[1]}": "${REDACTED}`;
  return head;
}
