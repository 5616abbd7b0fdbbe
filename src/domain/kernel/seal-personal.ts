import type { Sql } from '../../data/database';
import { replacePersonal, subjectOf, type Subject } from '../../shared/personal-data';
import { safeDecode } from '../../shared/redact';
import type { DataKeys } from './data-keys';
import { ERASED, sealedSubject, sealJson, unseal } from './seal';

/** A JSON value about to be stored, and whose data it holds where nothing inside it says (its fallback subject). */
export interface Stored {
  value: unknown;
  subject: Subject;
}

/**
 * Copies of `bodies` with every personal value sealed with its subject's key (ERASED where the subject is erased),
 * the subjects whose data they hold, and which of the keys `made` for new subjects sealed something (`used`: the
 * row must store them). Bodies without personal data come back as they are.
 */
export async function sealPersonal(
  keys: DataKeys,
  db: Sql,
  bodies: Stored[],
  made?: ReadonlyMap<string, Buffer>,
): Promise<{ values: unknown[]; subjects: Subject[]; used: Map<string, Buffer> }> {
  // One walk when every key is at hand (the usual case: a subject made by the request, or seen lately); else the
  // missing keys are read or made, and the bodies walked again with them.
  const subjects = new Set<Subject>();
  const missing = new Set<Subject>();
  // A value in both the request and its answer (a name, a place) is sealed once.
  const once = new Map<string, string>();
  const used = new Map<string, Buffer>();
  const sealOnce = (key: Buffer, subject: Subject, v: unknown) => {
    const plain = JSON.stringify(v);
    // A key made by this request seals values of a subject new to the instance: nothing kept would be used again.
    if (!made?.has(subject)) return keys.seal(key, subject, plain);
    used.set(subject, key);
    const id = `${subject}\u0000${plain}`;
    let text = once.get(id);
    if (text === undefined) once.set(id, (text = sealJson(key, subject, plain)));
    return text;
  };
  const sealWith = (lookup: (subject: Subject) => Buffer | null | undefined) =>
    bodies.map((b) =>
      replacePersonal(
        b.value,
        (v, s, kind) => {
          if (kind === 'place' && typeof v === 'string' && keys.publicPlace(v)) return undefined;
          const subject = s ?? b.subject;
          subjects.add(subject);
          const key = lookup(subject);
          if (key === undefined) missing.add(subject);
          return key ? sealOnce(key, subject, v) : ERASED;
        },
        b.subject,
      ),
    );
  let values = sealWith((s) => keys.atHand(s, made));
  if (missing.size) {
    const k = await keys.forSealing(db, missing, made);
    values = sealWith((s) => keys.atHand(s, made) ?? k.get(s));
  }
  return { values, subjects: [...subjects], used };
}

/** The subject a whole body is about: the one its top level names. */
export const topSubject = (value: unknown): Subject | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? subjectOf(value as Record<string, unknown>) : undefined;

/** Whose data a request is about, by its path: a booking, a job or an order it names. */
export function pathSubject(path: string): Subject | undefined {
  const m = /\/(bookings|jobs|orders)\/([^/?#]+)/.exec(path);
  if (!m) return undefined;
  // An id with a control character in it (a NUL a client put in the path), or longer than any id, names nobody: the
  // database could not hold it as a subject.
  const id = safeDecode(m[2]);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
  if (id.length > 128 || /[\u0000-\u001f\u007f]/.test(id)) return undefined;
  return `${m[1] === 'bookings' ? 'booking' : m[1] === 'jobs' ? 'job' : 'order'}:${id}`;
}

/** What stands for personal data nobody's: the day it arrived (its key is destroyed with the day's bodies). */
export const daySubject = (at: Date): Subject => `day:${at.toISOString().slice(0, 10)}`;

/**
 * Copies of stored JSON values with every sealed value opened, or ERASED where its key is gone. The shape is the
 * stored one: a sealed value stands where its value stood.
 */
export async function openSealed<T>(keys: DataKeys, db: Sql, values: T[]): Promise<T[]> {
  const subjects = new Set<string>();
  for (const v of values) visitStrings(v, (s) => void (sealedSubject(s) !== undefined && subjects.add(sealedSubject(s)!)));
  if (subjects.size === 0) return values;
  const k = await keys.forReading(db, subjects);
  return values.map((v) =>
    mapStrings<T>(v, (s) => {
      const subject = sealedSubject(s);
      if (subject === undefined) return s;
      const key = k.get(subject);
      return (key && unseal(key, s)) ?? ERASED;
    }),
  );
}

function visitStrings(v: unknown, visit: (s: string) => void): void {
  if (typeof v === 'string') visit(v);
  else if (Array.isArray(v)) for (const x of v) visitStrings(x, visit);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) visitStrings(x, visit);
}

function mapStrings<T>(v: T, f: (s: string) => unknown): T {
  return open(v, f) as T;
}

function open(v: unknown, f: (s: string) => unknown): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => open(x, f));
  if (v instanceof Date) return v;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, open(x, f)]));
  return v;
}
