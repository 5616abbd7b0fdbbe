import type { KeyWithPartner } from '../../data/repositories/partners-repository';
import { BoundedMemory } from '../../shared/bounded-memory';

/**
 * Authenticated keys kept in memory between requests, so a request does not need a round trip of its own to learn
 * who is calling. Safe because nothing is trusted blindly: every request that used a key asserts, in its final
 * statement and atomically with its writes, that the key is unrevoked and its partner's auth_version unchanged
 * (assert_key_fresh); a stale entry fails that statement as a whole and the request runs again from the database.
 * Only keys that authenticated are kept; an entry lives `ttlMs` at most.
 */
export class KeyCache {
  private readonly entries: BoundedMemory<KeyWithPartner>;

  constructor(ttlMs = 5 * 60_000, max = 10_000) {
    this.entries = new BoundedMemory(ttlMs, max);
  }

  get(keyId: string): KeyWithPartner | undefined {
    return this.entries.get(keyId);
  }

  set(row: KeyWithPartner): void {
    this.entries.set(row.keyId, row);
  }

  forget(keyId: string): void {
    this.entries.delete(keyId);
  }
}
