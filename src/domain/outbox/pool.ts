import type { Claimed, DeliveryPass, OutboxChannel, WorkerDeps } from './channel';

/** How a pool claims and tries a channel's messages (worker.ts builds it). */
export interface Attempter {
  claim(now: Date, limit: number, exclude: readonly string[]): Promise<Claimed[]>;
  /** Sends one claimed message and records its outcome: what it did to the message (undefined: our lease was lost). */
  attempt(msg: Claimed): Promise<keyof DeliveryPass | undefined>;
}

/**
 * A channel's attempts run in a pool of `channel.batchSize` slots: as soon as one attempt ends, its slot is filled
 * by another claim. So an endpoint that never answers holds one slot until its timeout, never a whole pass; and a
 * booking's next event (due once the last one is delivered) goes out at once, not a poll interval later. Which
 * messages may be tried together is the claim's to decide (webhooks: one attempt per endpoint at a time, round
 * robin), in the database, so it holds across instances.
 */
class Pool {
  readonly running = new Set<Promise<void>>();
  readonly pass: DeliveryPass = { delivered: 0, retried: 0, failed: 0 };
  readonly errors: unknown[] = [];
  /** Called when an attempt ends (a slot is free). */
  onSettled: () => void = () => {};

  constructor(
    private readonly deps: WorkerDeps,
    private readonly channel: OutboxChannel,
    private readonly attempter: Attempter,
  ) {}

  get free(): number {
    return this.channel.batchSize - this.running.size;
  }

  /** Claims up to the free slots and starts their attempts; the number claimed. */
  async fill(exclude: readonly string[] = []): Promise<Claimed[]> {
    if (this.free <= 0) return [];
    const claimed = await this.attempter.claim(this.deps.clock.now(), this.free, exclude);
    for (const msg of claimed) {
      const p: Promise<void> = this.attempter
        .attempt(msg)
        .then((result) => void (result && (this.pass[result] += 1)))
        .catch((err) => void this.errors.push(err))
        .finally(() => {
          this.running.delete(p);
          this.onSettled();
        });
      this.running.add(p);
    }
    return claimed;
  }

  /** Resolves when some attempt ends. */
  settled(): Promise<void> {
    return Promise.race(this.running);
  }
}

/**
 * Runs a channel's pool until nothing more can be claimed and every attempt has ended (tests drive deliveries pass
 * by pass with it). Each message is tried at most once in a run. The first error (an outcome that could not be
 * recorded) is thrown once every attempt has ended.
 */
export async function runPool(deps: WorkerDeps, channel: OutboxChannel, attempter: Attempter): Promise<DeliveryPass> {
  const pool = new Pool(deps, channel, attempter);
  const tried = new Set<string>();
  for (;;) {
    const claimed = pool.free > 0 ? await pool.fill([...tried]) : [];
    for (const msg of claimed) tried.add(msg.id);
    if (claimed.length > 0 && pool.free > 0) continue;
    if (pool.running.size === 0) break;
    await pool.settled();
  }
  if (pool.errors.length) throw pool.errors[0];
  return pool.pass;
}

/**
 * The channel's pool in the background: it claims whenever a slot is free, on each attempt's end and every `pollMs`
 * (a claim that finds nothing waits for one or the other). The returned stopper ends the loop and waits for the
 * attempts in flight.
 */
export function startPool(deps: WorkerDeps, channel: OutboxChannel, attempter: Attempter, opts: { pollMs: number }): () => Promise<void> {
  const pool = new Pool(deps, channel, attempter);
  let stopped = false;
  // Set when an attempt ends: a claim that found nothing then tries again at once instead of napping.
  let kicked = false;
  let wake = () => {};
  pool.onSettled = () => {
    for (const err of pool.errors.splice(0))
      deps.logger.warn({ err, channel: channel.name }, 'outbox outcome not recorded; the lease will expire and the message be tried again');
    const { delivered, retried, failed } = pool.pass;
    if (delivered + retried + failed >= 100) {
      deps.logger.info({ channel: channel.name, ...pool.pass }, 'outbox attempts');
      Object.assign(pool.pass, { delivered: 0, retried: 0, failed: 0 });
    }
    kicked = true;
    wake();
  };
  const nap = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, opts.pollMs);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (!stopped) {
      let more = false;
      kicked = false;
      try {
        more = (await pool.fill()).length > 0 && pool.free > 0;
      } catch (err) {
        deps.logger.warn({ err, channel: channel.name }, 'outbox pass failed; will retry');
      }
      if (!more && !kicked && !stopped) await nap();
    }
    await Promise.all(pool.running);
  })();
  return async () => {
    stopped = true;
    wake();
    await loop;
  };
}
