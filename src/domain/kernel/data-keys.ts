import type { Sql } from '../../data/database';
import type { Write } from '../../data/write';
import { keysForSealing, newKeysWrite, storedKeys } from '../../data/repositories/personal-data-keys-repository';
import { newDataKey, sealJson } from './seal';

/**
 * The subject of details that are never to be kept readable (an erasure request names the traveller it erases):
 * sealed as erased, with no key at all.
 */
export const FORGOTTEN = 'forgotten';

/** How many subjects' keys an instance keeps at hand (a key is 32 bytes). */
const KEPT = 20_000;
/** How many sealed values it keeps (some 200 bytes each). */
const SEALED_KEPT = 50_000;

/**
 * The data keys this instance seals with, kept at hand once read or made. A key kept here after its subject was
 * erased (on another instance) is harmless: what it seals can never be read, since the database no longer holds
 * it. Reading sealed values never uses what is kept here: only keys still in the database open them.
 */
export class DataKeys {
  /**
   * `publicPlace`: whether a place's text is a public place's name (an airport, a town): not sealed, since it says
   * no more than the place it was located at, which stays readable (the composition root gives the place index's).
   */
  constructor(readonly publicPlace: (name: string) => boolean = () => false) {}

  private readonly kept = new Map<string, Buffer | null>();
  /**
   * Values sealed lately, by subject and value (sealing is deterministic: the same text again). A traveller's name is
   * in a booking's request, its answer, each read and replay and each event: sealed once. Dropped with the subject's
   * key when it is erased here; one kept after an erasure elsewhere can never be read, like the key it came from.
   */
  private readonly sealed = new Map<string, string>();

  /** The keys to seal with (null: the subject is erased), made in the database where a subject has none. */
  async forSealing(db: Sql, subjects: Iterable<string>, made?: ReadonlyMap<string, Buffer>): Promise<Map<string, Buffer | null>> {
    const out = new Map<string, Buffer | null>();
    const missing: string[] = [];
    for (const s of subjects) {
      if (out.has(s)) continue;
      const k = this.atHand(s, made);
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

  /**
   * A key this instance made and stored with a request's write, once committed: kept at hand when its subject is
   * read again (a booking, an order: their reads, replays and events); a quote's or a search's is not (kept,
   * thousands of them would only push the others out, and make work for the garbage collector).
   */
  made(subject: string, key: Buffer): void {
    if (!subject.startsWith('quote:') && !subject.startsWith('search:')) this.keep(subject, key);
  }

  /**
   * A key read or made for sealing, kept as 32 bytes of its own: a key made by the id pool's copy or read by a
   * driver is a slice of Node's shared 8 KiB allocation pool, and kept as such it would keep the whole slab alive
   * (20,000 keys: up to 160 MB outside the heap, seen as the service's resident size passing 300 MB in the benchmark).
   * Buffer.copyBytesFrom would not do: it copies into the pool too.
   */
  keep(subject: string, key: Buffer | null): void {
    if (this.kept.size >= KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(subject, key && ownBytes(key));
  }

  /** The key to seal with, when it is at hand (undefined: ask forSealing). */
  atHand(subject: string, made?: ReadonlyMap<string, Buffer>): Buffer | null | undefined {
    if (subject === FORGOTTEN) return null;
    return made?.get(subject) ?? this.kept.get(subject);
  }

  /** A value of `subject`, given as its JSON text, sealed with `key`: as sealed lately, or now. */
  seal(key: Buffer, subject: string, plain: string): string {
    const id = `${subject}\u0000${plain}`;
    let text = this.sealed.get(id);
    if (text === undefined) {
      text = sealJson(key, subject, plain);
      if (this.sealed.size >= SEALED_KEPT) this.sealed.delete(this.sealed.keys().next().value!);
      this.sealed.set(id, text);
    }
    return text;
  }

  /** Subjects erased here: sealed as erased from now on. */
  erased(subjects: Iterable<string>): void {
    const gone = new Set(subjects);
    for (const s of gone) this.keep(s, null);
    for (const id of this.sealed.keys()) if (gone.has(id.slice(0, id.indexOf('\u0000')))) this.sealed.delete(id);
  }
}

/**
 * A copy of `b` in memory of its own (Buffer.alloc never takes from the shared pool). `b` may be any Uint8Array: the
 * embedded database's driver reads a bytea as one, PostgreSQL's as a Buffer.
 */
function ownBytes(b: Uint8Array): Buffer {
  const own = Buffer.alloc(b.length);
  own.set(b);
  return own;
}

/**
 * Data keys for subjects a write creates (a new quote, booking or search), offered to the request's audit row: the
 * pipeline stores those it sealed with in the same statement as the write (newKeysStored), so a key commits with
 * what it protects, the row needs no lookup, and a subject with nothing personal (a quote between an airport and a
 * town) gets no key at all.
 */
export const newSubjectKeys = (subjects: string[]): ReadonlyMap<string, Buffer> => new Map(subjects.map((s) => [s, newDataKey()]));

/** The write that stores keys a request sealed with (see newSubjectKeys). */
export const newKeysStored = (keys: ReadonlyMap<string, Buffer>): Write => newKeysWrite([...keys.keys()], [...keys.values()]);
