import type { Sql } from '../../data/database';
import type { Write } from '../../data/write';
import { keysForSealing, newKeysWrite, storedKeys } from '../../data/repositories/personal-data-keys-repository';
import { newDataKey } from './seal';

/**
 * The subject of details that are never to be kept readable (an erasure request names the traveller it erases):
 * sealed as erased, with no key at all.
 */
export const FORGOTTEN = 'forgotten';

/** How many subjects' keys an instance keeps at hand (a key is 32 bytes). */
const KEPT = 20_000;

/**
 * The data keys this instance seals with, kept at hand once read or made. A key kept here after its subject was
 * erased (on another instance) is harmless: what it seals can never be read, since the database no longer holds
 * it. Reading sealed values never uses what is kept here: only keys still in the database open them.
 */
export class DataKeys {
  private readonly kept = new Map<string, Buffer | null>();

  /** The keys to seal with (null: the subject is erased), made in the database where a subject has none. */
  async forSealing(db: Sql, subjects: Iterable<string>, made?: ReadonlyMap<string, Buffer>): Promise<Map<string, Buffer | null>> {
    const out = new Map<string, Buffer | null>();
    const missing: string[] = [];
    for (const s of subjects) {
      if (out.has(s)) continue;
      const k = s === FORGOTTEN ? null : (made?.get(s) ?? this.kept.get(s));
      if (k === undefined) missing.push(s);
      out.set(s, k ?? null);
    }
    if (missing.length) {
      const rows = await keysForSealing(
        db,
        missing,
        missing.map(() => newDataKey()),
      );
      for (const r of rows) {
        out.set(r.subject, r.key);
        this.keep(r.subject, r.key);
      }
    }
    return out;
  }

  /** The keys that open sealed values: the database's, never what is kept here. */
  async forReading(db: Sql, subjects: Iterable<string>): Promise<Map<string, Buffer>> {
    const rows = await storedKeys(db, [...new Set(subjects)]);
    return new Map(rows.filter((r) => r.key).map((r) => [r.subject, r.key!]));
  }

  /** A key this instance made with a use case's write, once committed. */
  keep(subject: string, key: Buffer | null): void {
    if (this.kept.size >= KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(subject, key);
  }

  /** Subjects erased here: sealed as erased from now on. */
  erased(subjects: Iterable<string>): void {
    for (const s of subjects) this.keep(s, null);
  }
}

/**
 * Data keys for subjects a write creates (a new quote, booking or order), and the write that stores them: the
 * use case combines it with its own, so the keys commit with what they protect and the audit row needs no lookup.
 */
export function newSubjectKeys(subjects: string[]): { dataKeys: ReadonlyMap<string, Buffer>; write: Write } {
  const keys = subjects.map(() => newDataKey());
  return { dataKeys: new Map(subjects.map((s, i) => [s, keys[i]])), write: newKeysWrite(subjects, keys) };
}
