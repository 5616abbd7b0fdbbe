/**
 * Polls `check` until it gives a value (not undefined), or fails after `timeoutMs`. For what another connection
 * decides the timing of, not for time: on PostgreSQL every test file shares one database, and GET /events lists an
 * event (and a worker delivers it) only once every transaction that began before it has ended, whichever schema it
 * runs in; a test elsewhere holding a transaction open on purpose delays the listing, never changes it.
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
