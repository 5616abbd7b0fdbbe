/**
 * The database's failures, classified in one place. Repositories turn constraint violations into the conflicts
 * the domain understands; everything that means "the database cannot be reached right now" becomes a 503.
 */
export interface DbError {
  code?: string;
  constraint?: string;
  nativeError?: { code?: string; constraint?: string };
}

export const pgCode = (e: unknown): string | undefined => (e as DbError)?.code ?? (e as DbError)?.nativeError?.code;
export const constraintOf = (e: unknown): string | undefined => (e as DbError)?.constraint ?? (e as DbError)?.nativeError?.constraint;

/** A unique violation, optionally of one named constraint. */
export const isUniqueViolation = (e: unknown, constraint?: string): boolean => pgCode(e) === '23505' && (!constraint || constraintOf(e) === constraint);

/** An exclusion-constraint violation (two rows claiming the same thing for overlapping times). */
export const isExclusionViolation = (e: unknown, constraint?: string): boolean => pgCode(e) === '23P01' && (!constraint || constraintOf(e) === constraint);

/** A lock wait that ran past lock_timeout: someone else holds the row. */
export const isLockTimeout = (e: unknown): boolean => pgCode(e) === '55P03';

/** Lost to another transaction: a row it inserted first, or holds past lock_timeout. Deciding again settles it. */
export const isContention = (e: unknown): boolean => isUniqueViolation(e) || isExclusionViolation(e) || isLockTimeout(e);

/** True for errors that mean "the database is unreachable, restarting or overloaded", as opposed to a bad query. */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; name?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.name === 'KnexTimeoutError') return true;
  const code = pgCode(e) ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  // 08: connection exceptions; 57P0x: shutdown; 53300: too many connections; 57014: statement timeout.
  if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014'].includes(code)) return true;
  return /Connection terminated|connection is closed|Client has encountered a connection error|not queryable|PGlite is closed/i.test(e.message ?? '');
}
