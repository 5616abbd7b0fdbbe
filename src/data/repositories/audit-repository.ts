import { createHash } from 'node:crypto';
import { sql, type Sql, type Statement } from '../database';
import { AppError } from '../../shared/errors';
import { combine, isEmpty, shift, type Write } from '../write';

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

const COLUMNS =
  'surface, direction, method, path, status, partner_id, env, request_id, request_headers, request_body, response_headers, response_body, duration_ms, attempt, error, client, operator_id, trace_id, at, subjects';
const VALUES =
  '$1::text, $2::text, $3::text, $4::text, $5::int, $6::text, $7::text, $8::text, $9::jsonb, $10::jsonb, $11::jsonb, $12::jsonb, $13::int, $14::int, $15::text, $16::text, $17::text, $18::text, coalesce($19::timestamptz, now()), $20::text[]';

const params = (e: AuditEntry): unknown[] => [
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

const insertOne = sql(`insert into audit_log (${COLUMNS}) values (${VALUES})`);

export async function appendAudit(db: Sql, e: AuditEntry): Promise<void> {
  await db.query(insertOne, params(e));
}

const composed = new Map<string, string>();

/**
 * The one statement that runs `write` and appends the audit row (guarded, when the write is), and evaluates the
 * write's assertions. Its result row: `n`, the number of audit rows inserted (0 when the guard produced nothing).
 */
export function auditedStatement(write: Write, e: AuditEntry): { statement: Statement; params: readonly unknown[] } {
  const all = combine(write, {
    ctes: [`audit as (insert into audit_log (${COLUMNS}) select ${VALUES}${write.guard ? ' where exists (select 1 from __guard__)' : ''} returning 1)`],
    params: params(e),
  });
  const asserts = all.asserts?.length ? `, ${all.asserts.map((a) => `(select ${a})`).join(', ')}` : '';
  const key = `${write.guard ?? ''}\u0002${all.ctes.join(',\n')}\u0002${asserts}`;
  let text = composed.get(key);
  if (text === undefined) {
    text = `with ${all.ctes.join(',\n')}\nselect count(*)::int as n${asserts} from audit`.replace('__guard__', write.guard ?? '');
    composed.set(key, text);
  }
  return { statement: sql(text), params: all.params };
}

/**
 * Runs `write` and appends the audit row in one statement (one implicit transaction, or in the caller's). With a
 * guarded write the audit row is inserted only if the guard produced rows; returns whether it was, i.e. whether the
 * write happened. An audit row whose write only asserts (a read, a ping, a refusal: no rows of its own) goes with
 * the others waiting at that moment, in one statement (see AuditBatches).
 */
export async function commitWithAudit(db: Sql, write: Write | undefined, e: AuditEntry): Promise<boolean> {
  if (!db.inTransaction && !write?.ctes.length && !write?.guard) {
    await batchesOf(db).add(write, e);
    return true;
  }
  if (isEmpty(write)) {
    await appendAudit(db, e);
    return true;
  }
  const { statement, params: values } = auditedStatement(write!, e);
  const rows = await db.query<{ n: number }>(statement, values);
  return rows[0].n > 0;
}

/** One statement's worth of audit rows (and their assertions). */
const MAX_BATCH = 16;
/** Batch statements in flight at once, per database handle: the others wait and go together when one ends. */
const IN_FLIGHT = 2;

interface Waiting {
  write: Write | undefined;
  entry: AuditEntry;
  done: (e?: Error) => void;
}

/**
 * Audit rows that change nothing else, committed together: a row waits only while IN_FLIGHT statements of rows are
 * already running, and then goes with the rows that arrived meanwhile, up to MAX_BATCH, as one multi-row INSERT
 * that also evaluates each row's assertions. Each request still answers only once its row is committed. A
 * statement is atomic: if it fails (a key revoked meanwhile, an empty bucket, a row the log refuses), nothing of
 * it was written, and each of its rows is committed on its own, so each request hears its own outcome; an
 * unreachable database fails them all at once. Rows are grouped by the text of their assertions, so a handful of
 * statement texts serve every batch (named, prepared once per connection).
 */
class AuditBatches {
  private readonly waiting = new Map<string, Waiting[]>();
  private running = 0;

  constructor(private readonly db: Sql) {}

  add(write: Write | undefined, entry: AuditEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      const shape = write?.asserts?.join('\u0002') ?? '';
      let list = this.waiting.get(shape);
      if (!list) this.waiting.set(shape, (list = []));
      list.push({ write, entry, done: (e) => (e === undefined ? resolve() : reject(e)) });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < IN_FLIGHT && this.waiting.size) {
      const [shape, list] = this.waiting.entries().next().value!;
      const batch = list.splice(0, MAX_BATCH);
      if (!list.length) this.waiting.delete(shape);
      this.running += 1;
      void this.commit(batch).finally(() => {
        this.running -= 1;
        this.pump();
      });
    }
  }

  private async commit(batch: Waiting[]): Promise<void> {
    try {
      await this.run(batch);
      for (const w of batch) w.done();
    } catch (e) {
      if (batch.length === 1 || isUnavailableError(e)) for (const w of batch) w.done(asError(e));
      else
        await Promise.all(
          batch.map((w) =>
            this.run([w]).then(
              () => w.done(),
              (err: unknown) => w.done(asError(err)),
            ),
          ),
        );
    }
  }

  private async run(batch: Waiting[]): Promise<void> {
    const values: string[] = [];
    const asserts: string[] = [];
    const all: unknown[] = [];
    for (const { write, entry } of batch) {
      for (const a of write?.asserts ?? []) asserts.push(shift(a, all.length));
      if (write) all.push(...write.params);
      values.push(`(${shift(VALUES, all.length)})`);
      all.push(...params(entry));
    }
    if (!asserts.length && batch.length === 1) return void (await this.db.query(insertOne, all));
    const text = `with audit as (insert into audit_log (${COLUMNS}) values ${values.join(', ')} returning 1)
select count(*)::int as n${asserts.map((a) => `, (select ${a})`).join('')} from audit`;
    await this.db.query(sql(text), all);
  }
}

const isUnavailableError = (e: unknown) => e instanceof AppError && e.code === 'service_unavailable';
const asError = (e: unknown): Error => (e instanceof Error ? e : new Error('the audit statement failed', { cause: e }));

const batches = new WeakMap<Sql, AuditBatches>();
function batchesOf(db: Sql): AuditBatches {
  let b = batches.get(db);
  if (!b) batches.set(db, (b = new AuditBatches(db)));
  return b;
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
