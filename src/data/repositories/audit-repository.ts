import { createHash } from 'node:crypto';
import { sql, type Sql } from '../database';

/** One audited exchange. Headers and bodies are JSON text, already redacted (see shared/redact). */
export interface AuditEntry {
  surface: string;
  direction: 'inbound' | 'outbound';
  method: string;
  path: string;
  status: number | null;
  partnerId: string | null;
  env: string | null;
  requestId: string;
  requestHeaders: string;
  requestBody: string | null;
  responseHeaders: string;
  responseBody: string | null;
  durationMs: number;
  attempt?: number | null;
  error?: string | null;
  /** The client's address (inbound; as TRUST_PROXY decides it). */
  client?: string | null;
  /** The operator who sent it (operator surfaces). */
  operatorId?: string | null;
  /** The W3C trace id of the caller's traceparent. */
  traceId?: string | null;
  /** Whose personal data its bodies hold, sealed (see domain/privacy). */
  subjects?: string[] | null;
  /** When the exchange began (an inbound request's arrival); the time of the write when absent. */
  at?: Date;
}

export const COLUMNS =
  'surface, direction, method, path, status, partner_id, env, request_id, request_headers, request_body, response_headers, response_body, duration_ms, attempt, error, client, operator_id, trace_id, at, subjects';
export const VALUES =
  '$1::text, $2::text, $3::text, $4::text, $5::int, $6::text, $7::text, $8::text, $9::jsonb, $10::jsonb, $11::jsonb, $12::jsonb, $13::int, $14::int, $15::text, $16::text, $17::text, $18::text, coalesce($19::timestamptz, now()), $20::text[]';

export const params = (e: AuditEntry): unknown[] => [
  e.surface,
  e.direction,
  text(e.method),
  text(e.path),
  e.status,
  e.partnerId,
  e.env,
  e.requestId,
  storable(e.requestHeaders),
  capped(storable(e.requestBody)),
  storable(e.responseHeaders),
  capped(storable(e.responseBody)),
  e.durationMs,
  e.attempt ?? null,
  e.error === undefined || e.error === null ? null : text(e.error),
  e.client ?? null,
  e.operatorId ?? null,
  e.traceId ?? null,
  e.at ?? null,
  e.subjects ?? null,
];

/** PostgreSQL text cannot hold NUL; anything else a client sends is kept. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what is looked for
const text = (s: string) => (s.includes('\u0000') ? s.replace(/\u0000/g, '\\u0000') : s);

// JSON.stringify writes NUL as \u0000 and a lone surrogate as \udXXX (pairs stay raw characters): the only two
// things jsonb refuses. An odd number of backslashes before the "u" marks a real escape.
const JSONB_REFUSES = /(?<!\\)((?:\\\\)*)\\u(0000|d[89a-f][0-9a-f]{2})/gi;

/**
 * JSON text jsonb accepts, for any value: NUL characters and lone surrogates are kept as the visible text
 * "\u0000" / "\ud800" (a backslash and five characters), everything else as it is. Numbers are JSON.stringify's
 * (finite doubles), which jsonb's numeric always holds.
 */
export function jsonbText(value: unknown): string | null {
  if (value === undefined) return null;
  const t = JSON.stringify(value);
  return t === undefined ? null : storable(t);
}

/** The same for JSON text already serialised (a response as sent): whatever it holds, the audit row can store it. */
export function storable<T extends string | null>(json: T): T {
  return (json && json.includes('\\u') ? json.replace(JSONB_REFUSES, '$1\\\\u$2') : json) as T;
}

/** The most of a body's JSON text one audit row keeps (bytes); a larger body is kept as its size, digest and head. */
export const AUDIT_BODY_CAP = 64 * 1024;
/** How much of the start of a body over the cap is kept (characters of its JSON text). */
export const CUT_HEAD = 2 * 1024;

/**
 * Every stored body is bounded, whoever wrote it and whatever route a future change adds: over AUDIT_BODY_CAP it is
 * kept as `{"$cut": {"bytes", "sha256", "head"}}` (its UTF-8 size, the SHA-256 of the whole text, its first 2 KiB).
 * The text was redacted before it got here, so its head holds no secret.
 */
export function capped<T extends string | null>(json: T): T | string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most bodies are known to fit without measuring them.
  if (json === null || json.length * 3 <= AUDIT_BODY_CAP) return json;
  const bytes = Buffer.byteLength(json);
  if (bytes <= AUDIT_BODY_CAP) return json;
  return jsonbText({ $cut: { bytes, sha256: createHash('sha256').update(json).digest('hex'), head: json.slice(0, CUT_HEAD) } })!;
}

/**
 * How a body that could not be stored as the JSON it is (not JSON, not UTF-8, or holding what jsonb refuses) is
 * kept faithfully: `{"$unparsed": {"reason", "bytes", "text"}}` when the bytes are UTF-8 text, else with
 * `"base64"` instead of `"text"`. Secrets are redacted before either form.
 */
export function unparsedBody(bytes: Buffer, reason: string): string {
  const asText = utf8(bytes);
  const form = asText !== null && !asText.includes('\u0000') ? { text: asText } : { base64: bytes.toString('base64') };
  return jsonbText({ $unparsed: { reason, bytes: bytes.length, ...form } })!;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
function utf8(bytes: Buffer): string | null {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

export const insertOne = sql(`insert into audit_log (${COLUMNS}) values (${VALUES})`);

export async function appendAudit(db: Sql, e: AuditEntry): Promise<void> {
  await db.query(insertOne, params(e));
}

const ensure = sql('select audit_log_ensure_partitions($1::timestamptz, $2::int) as made');

/** Creates the monthly partitions from `from`'s month on, `months` of them (idempotent, safe on every instance). */
export async function ensureAuditPartitions(db: Sql, from: Date, months: number): Promise<number> {
  const rows = await db.query<{ made: number }>(ensure, [from, months]);
  return rows[0].made;
}

const partitionsOlderThan = sql(`
  select c.relname as name
  from pg_inherits i
  join pg_class c on c.oid = i.inhrelid
  join pg_class p on p.oid = i.inhparent
  join pg_namespace n on n.oid = p.relnamespace
  where p.relname = 'audit_log' and n.nspname = current_schema() and c.relname ~ '^audit_log_[0-9]{4}_[0-9]{2}$'
    and to_date(substr(c.relname, 11), 'YYYY_MM') + interval '1 month' <= $1::timestamptz
  order by c.relname`);

/**
 * Audit retention: drops whole months that ended before `cutoff` (AUDIT_RETENTION_MONTHS; unset keeps everything).
 * Rows are never deleted one by one: the append-only trigger refuses that.
 */
export async function dropAuditPartitionsBefore(db: Sql, cutoff: Date): Promise<string[]> {
  const old = await db.query<{ name: string }>(partitionsOlderThan, [cutoff]);
  for (const { name } of old) await db.query(`drop table "${name.replace(/"/g, '')}"`);
  return old.map((r) => r.name);
}
