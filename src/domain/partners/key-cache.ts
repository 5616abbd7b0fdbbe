import type { KeyWithPartner } from '../../data/repositories/partners-repository';

/**
 * Authenticated keys kept in memory between requests, so a request does not need a round trip of its own to learn
 * who is calling. Safe because nothing is trusted blindly: every request that used a key asserts, in its final
 * statement and atomically with its writes, that the key is unrevoked and its partner's auth_version unchanged
 * (assert_key_fresh); a stale entry fails that statement as a whole and the request runs again from the database.
 * Only keys that authenticated are kept; an entry lives `ttlMs` at most.
 */
export class KeyCache {
  private readonly entries = new Map<string, { row: KeyWithPartner; at: number }>();

  constructor(
    private readonly ttlMs = 5 * 60_000,
    private readonly max = 10_000,
  ) {}

  get(keyId: string, now = Date.now()): KeyWithPartner | undefined {
    const e = this.entries.get(keyId);
    if (!e) return undefined;
    if (now - e.at > this.ttlMs) {
      this.entries.delete(keyId);
      return undefined;
    }
    return e.row;
  }

  set(row: KeyWithPartner, now = Date.now()): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(row.keyId, { row, at: now });
  }

  forget(keyId: string): void {
    this.entries.delete(keyId);
  }
}
