import { AppError } from '../../shared/errors';
import { sql, type Sql, type Statement } from '../database';
import { combine, isEmpty, shift, type Write } from '../write';
import { appendAudit, COLUMNS, insertOne, params, VALUES, type AuditEntry } from './audit-repository';

/**
 * Committing a request's audit row with its write: in one statement, and, for rows that change nothing else or
 * whose write is shareable, in one statement with the other requests' rows waiting at that moment.
 */

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
 * write happened. An audit row whose write only asserts (a read, a ping, a refusal) or is shareable (a quote) goes
 * with the others waiting at that moment, in one statement (see AuditBatches).
 */
export async function commitWithAudit(db: Sql, write: Write | undefined, e: AuditEntry): Promise<boolean> {
  if (!db.inTransaction && !write?.guard && (!write?.ctes.length || write.shareable)) {
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
/**
 * Requests with writes of their own (quotes) go 1, 2, 4 or 8 at a time: PostgreSQL prepares and keeps each size's
 * statement on each connection (about 0.8 MB for 8 quotes), and four sizes bound that memory.
 */
const MAX_SHARED = 8;
/** Batch statements in flight at once, per database handle: the others wait and go together when one ends. */
const IN_FLIGHT = 2;

interface Waiting {
  write: Write | undefined;
  entry: AuditEntry;
  done: (e?: Error) => void;
}

/**
 * Audit rows that change nothing else, or whose write is shareable (a quote's rows: see Write.shareable), committed
 * together. A request waits only while IN_FLIGHT statements are already running, and then goes with the requests
 * that arrived meanwhile (up to MAX_BATCH, or MAX_SHARED with writes of their own) as one statement: each request's
 * CTEs, renamed its own (`quote_in` → `quote_in_2`), one multi-row INSERT of the audit rows, and each row's
 * assertions. Each request still answers only once its rows are committed. A statement is atomic: if it fails (a key
 * revoked meanwhile, an empty bucket, a row the log refuses), nothing of it was written, and each of its requests is
 * committed on its own, so each hears its own outcome; an unreachable database fails them all at once. Requests are
 * grouped by the text of their CTEs and assertions, so a handful of statement texts serve every batch (named,
 * prepared once per connection).
 */
class AuditBatches {
  private readonly waiting = new Map<string, Waiting[]>();
  private running = 0;

  constructor(private readonly db: Sql) {}

  add(write: Write | undefined, entry: AuditEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      const shape = write ? `${write.ctes.join('\u0001')}\u0002${write.asserts?.join('\u0001') ?? ''}` : '';
      let list = this.waiting.get(shape);
      if (!list) this.waiting.set(shape, (list = []));
      list.push({ write, entry, done: (e) => (e === undefined ? resolve() : reject(e)) });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < IN_FLIGHT && this.waiting.size) {
      const [shape, list] = this.waiting.entries().next().value!;
      const batch = list.splice(0, batchSize(list));
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
    const ctes: string[] = [];
    const values: string[] = [];
    const asserts: string[] = [];
    const all: unknown[] = [];
    for (const [i, { write, entry }] of batch.entries()) {
      const own = write && batch.length > 1 ? renamed(write.ctes, i) : (s: string) => s;
      for (const c of write?.ctes ?? []) ctes.push(own(shift(c, all.length)));
      for (const a of write?.asserts ?? []) asserts.push(own(shift(a, all.length)));
      if (write) all.push(...write.params);
      values.push(`(${shift(VALUES, all.length)})`);
      all.push(...params(entry));
    }
    if (!ctes.length && !asserts.length && batch.length === 1) return void (await this.db.query(insertOne, all));
    ctes.push(`audit as (insert into audit_log (${COLUMNS}) values ${values.join(', ')} returning 1)`);
    const text = `with ${ctes.join(',\n')}\nselect count(*)::int as n${asserts.map((a) => `, (select ${a})`).join('')} from audit`;
    await this.db.query(sql(text), all);
  }
}

/** How many of a shape's waiting requests go in the next statement (see MAX_SHARED). */
function batchSize(list: readonly Waiting[]): number {
  if (!list[0].write?.ctes.length) return Math.min(list.length, MAX_BATCH);
  return 2 ** Math.floor(Math.log2(Math.min(list.length, MAX_SHARED)));
}

/**
 * A request's CTE names made its own within a shared statement: `name` → `name_<i>`, wherever its texts use them
 * (memoised: the same few texts come back in every batch).
 */
function renamed(ctes: readonly string[], i: number): (text: string) => string {
  const names = ctes.map((c) => /^\s*(\w+) as \(/.exec(c)?.[1]).filter((n): n is string => n !== undefined);
  if (!names.length) return (t) => t;
  const alternatives = names.join('|');
  let word = nameWords.get(alternatives);
  if (!word) nameWords.set(alternatives, (word = new RegExp(`\\b(${alternatives})\\b`, 'g')));
  const words = word;
  return (t) => {
    const key = `${i}\u0001${t}`;
    let out = renames.get(key);
    if (out === undefined) renames.set(key, (out = t.replace(words, `$1_${i}`)));
    return out;
  };
}
const renames = new Map<string, string>();
const nameWords = new Map<string, RegExp>();

const isUnavailableError = (e: unknown) => e instanceof AppError && e.code === 'service_unavailable';
const asError = (e: unknown): Error => (e instanceof Error ? e : new Error('the audit statement failed', { cause: e }));

const batches = new WeakMap<Sql, AuditBatches>();
function batchesOf(db: Sql): AuditBatches {
  let b = batches.get(db);
  if (!b) batches.set(db, (b = new AuditBatches(db)));
  return b;
}
