import { sql, type Sql } from '../database';
import type { Write } from '../write';

/** A subject's data key; null once the subject is erased. */
export type StoredKey = { subject: string; key: Buffer | null };

const insertMissing = sql(`
  insert into personal_data_keys (subject, key)
  select * from unnest($1::text[], $2::bytea[])
  on conflict (subject) do nothing
  returning subject, key`);
const readKeys = sql('select subject, key from personal_data_keys where subject = any($1::text[])');

/**
 * The keys of `subjects`, made where a subject has none (with the `proposed` key at the same index). An erased
 * subject answers null: its row stays, so no request can make it a new key.
 */
export async function keysForSealing(db: Sql, subjects: string[], proposed: Buffer[]): Promise<StoredKey[]> {
  const made = await db.query<StoredKey>(insertMissing, [subjects, proposed]);
  if (made.length === subjects.length) return made;
  const got = new Set(made.map((k) => k.subject));
  // Keys another request made: a statement of their own sees them once they committed.
  return made.concat(await db.query<StoredKey>(readKeys, [subjects.filter((s) => !got.has(s))]));
}

/** The keys of `subjects` as they are (reading sealed values: an erased or unknown subject has none). */
export async function storedKeys(db: Sql, subjects: string[]): Promise<StoredKey[]> {
  return subjects.length ? db.query<StoredKey>(readKeys, [subjects]) : [];
}

const destroy = sql(`
  insert into personal_data_keys (subject, key, erased_at)
  select s, null, $2::timestamptz from unnest($1::text[]) s
  on conflict (subject) do update set key = null, erased_at = coalesce(personal_data_keys.erased_at, excluded.erased_at)
  returning subject, (xmax = 0) as unknown`);

/** Destroys the keys of `subjects` (and marks subjects that had none, so none is ever made). Returns how many were destroyed. */
export async function destroyKeys(db: Sql, subjects: string[], at: Date): Promise<number> {
  if (!subjects.length) return 0;
  const rows = await db.query<{ subject: string; unknown: boolean }>(destroy, [subjects, at]);
  return rows.filter((r) => !r.unknown).length;
}

/** The key rows of subjects made by a use case's own write (a new booking, quote or order). */
export function newKeysWrite(subjects: string[], keys: Buffer[], cte = 'new_data_keys'): Write {
  // The subjects are new ids of the request's own: a key shares a statement with other requests' rows safely.
  return {
    shareable: true,
    ctes: [
      `${cte} as (insert into personal_data_keys (subject, key) select * from unnest($1::text[], $2::bytea[]) on conflict (subject) do nothing returning 1)`,
    ],
    params: [subjects, keys],
  };
}
