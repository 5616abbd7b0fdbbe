import { sql, type Sql } from './database';

/**
 * A write that commits in one statement: data-modifying CTEs (`name AS (INSERT … RETURNING …)`), parameters
 * numbered from $1. The request pipeline joins a request's write with its audit row (and any other writes the
 * request owes, such as a key's last-used time) into one statement, which PostgreSQL runs as one transaction: the
 * change and its audit row commit together or not at all, in a single round trip.
 */
export interface Write {
  readonly ctes: readonly string[];
  readonly params: readonly unknown[];
  /**
   * The CTE whose rows prove the write happened. When it returns none (a concurrent request got there first, or a
   * condition no longer held), nothing of the statement is meant to count: the audit row is not written either,
   * and the caller works out the real answer.
   */
  readonly guard?: string;
  /**
   * Boolean SQL expressions that must hold when the statement runs (parameters numbered like the CTEs'). They raise
   * to fail the whole statement (e.g. assert_key_fresh: the caller's credentials have not changed meanwhile).
   */
  readonly asserts?: readonly string[];
  /**
   * Its CTEs insert only rows of its own request (new ids) and read nothing another request's write could change, so
   * it may share one statement with other requests' writes (AuditBatches): a quote. A write that checks what others
   * write (a booking's fleet_has_room, a claim) must not: in one statement they would share a snapshot.
   */
  readonly shareable?: boolean;
}

const renumbered = new Map<string, string>();

/** Shifts `$n` placeholders by `offset` (memoised: the same texts come back on every request). */
export function shift(text: string, offset: number): string {
  if (offset === 0) return text;
  const key = `${offset}\u0001${text}`;
  let out = renumbered.get(key);
  if (out === undefined) {
    out = text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    renumbered.set(key, out);
  }
  return out;
}

/** Several writes as one: CTE names must differ; the first guard wins. */
export function combine(...writes: Array<Write | undefined>): Write {
  const ctes: string[] = [];
  const params: unknown[] = [];
  const asserts: string[] = [];
  let guard: string | undefined;
  let shareable = true;
  for (const w of writes) {
    if (!w) continue;
    if (w.ctes.length && !w.shareable) shareable = false;
    const offset = params.length;
    for (const c of w.ctes) ctes.push(shift(c, offset));
    for (const a of w.asserts ?? []) asserts.push(shift(a, offset));
    params.push(...w.params);
    guard ??= w.guard;
  }
  return { ctes, params, guard, asserts, shareable };
}

/** Whether a write has anything to run besides the audit row. */
export const isEmpty = (w: Write | undefined): boolean => !w || (w.ctes.length === 0 && !w.asserts?.length);

export const placeholders = (from: number, count: number) => Array.from({ length: count }, (_, i) => `$${from + i}`);

const standalone = new Map<string, string>();

/**
 * Runs a guarded write on its own, in the caller's transaction (no audit row: the request's own is appended when
 * that transaction commits). Returns whether the guard produced rows, i.e. whether the write happened.
 */
export async function runWrite(db: Sql, w: Write): Promise<boolean> {
  if (!w.guard) throw new Error('runWrite: a write run on its own needs a guard');
  const key = `${w.guard}\u0002${w.ctes.join(',\n')}`;
  let text = standalone.get(key);
  if (text === undefined) {
    text = `with ${w.ctes.join(',\n')}\nselect count(*)::int as n from ${w.guard}`;
    standalone.set(key, text);
  }
  const [row] = await db.query<{ n: number }>(sql(text), w.params);
  return row.n > 0;
}
