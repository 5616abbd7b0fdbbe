import type { Config } from '../../config/env';
import type { Database } from '../../data/database';
import * as repo from '../../data/repositories/erasure-repository';
import { destroyKeys } from '../../data/repositories/personal-data-keys-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { DataKeys } from '../kernel/data-keys';
import { eraseBooking, eraseOrder } from './erase';

/** The lease row of the pass in `privacy_passes`. */
export const PRIVACY_PASS = 'privacy';
/** The pass is this instance's for this long (a crashed instance's pass is run by another after it). */
const LEASE_MS = 10 * 60_000;
/** A pass starts no new batch after this long (well within its lease); what is left is the next pass's. */
const BUDGET_MS = 2 * 60_000;
/** Bookings or orders erased (or deleted) per transaction. */
const BATCH = 100;
/** Rows changed per statement where each is one row's change (positions, audit bodies, keys). */
const BULK = 1000;
/** Batches of one kind per pass, at most, and the time they may take: no kind's backlog starves the others. */
const MAX_BATCHES = 50;
const KIND_MS = BUDGET_MS / 5;
/** After a pass that left work due, the next one runs this soon (or at the usual interval, if sooner). */
const CATCH_UP_MS = 30_000;

const DAY_MS = 24 * 3600_000;

/** What the pass changes, by kind (the `kind` of `privacy_retention_rows_total`). */
export const RETENTION_KINDS = [
  'bookings_erased',
  'orders_erased',
  'positions',
  'last_positions',
  'audit_bodies',
  'data_keys',
  'bookings_deleted',
  'orders_deleted',
] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

export interface PrivacyRetentionDeps {
  db: Database;
  clock: Clock;
  dataKeys: DataKeys;
  config: Pick<Config, 'privacyRetention'>;
}

/** Told as each batch commits (so a pass that fails later still counts what it did). */
export interface PrivacyRetentionObserver {
  rows(kind: RetentionKind, n: number): void;
  /** A pass that ran to its end (caught up or stopped at its budget), and how long it took. */
  passed(result: PrivacyPass): void;
  failed(err: unknown): void;
}

export interface PrivacyPass {
  /** Rows changed, by kind. */
  rows: Record<RetentionKind, number>;
  seconds: number;
  /** Nothing was left due: the pass's `finished_at` is now (else its budget ran out, and the next pass goes on). */
  caughtUp: boolean;
}

/** The cutoffs of one pass: each kind's retention back from the service's clock. */
export function retentionCutoffs(now: Date, r: Config['privacyRetention']) {
  const financial = new Date(now);
  financial.setUTCFullYear(financial.getUTCFullYear() - r.financialYears);
  return {
    travellerData: new Date(now.getTime() - r.travellerDataDays * DAY_MS),
    rideTrack: new Date(now.getTime() - r.rideTrackDays * DAY_MS),
    auditBody: new Date(now.getTime() - r.auditBodyDays * DAY_MS),
    financial,
  };
}

/**
 * One privacy retention pass (docs/operations.md, "Retention"), on whichever instance holds its lease
 * (`privacy_passes`, taken in one statement; another instance's pass meanwhile does nothing and answers undefined):
 * 1. a traveller's personal data, TRAVELLER_DATA_RETENTION_DAYS after the ride ended or the booking was cancelled
 *    (bookings; marketplace orders cancelled, declined, completed or a no-show): erased as an erasure request would
 *    (erase.ts), a batch of bookings per transaction;
 * 2. the rides' GPS tracks older than RIDE_TRACK_RETENTION_DAYS: positions deleted, last known positions forgotten
 *    (jobs, bookings, the positions sent on to the marketplace);
 * 3. audit bodies older than AUDIT_BODY_RETENTION_DAYS: each replaced by its digest (the one change the audit log's
 *    trigger allows), the row kept; the days' data keys destroyed, and the keys of quotes and searches no longer kept;
 * 4. erased bookings and orders FINANCIAL_RETENTION_YEARS after their ride: deleted with what names them.
 * Each kind stops at MAX_BATCHES or KIND_MS, the pass at BUDGET_MS; the lease is given back with `finished_at` when nothing
 * was left due (the metric `privacy_retention_last_success_timestamp_seconds`), `failed_at` when the pass failed
 * (and the error is thrown).
 */
export async function runPrivacyRetention(
  deps: PrivacyRetentionDeps,
  holder: string,
  o: { rows?: (kind: RetentionKind, n: number) => void; stopping?: () => boolean } = {},
): Promise<PrivacyPass | undefined> {
  const { db } = deps;
  const now = deps.clock.now();
  if (!(await repo.claimPrivacyPass(db, PRIVACY_PASS, holder, now, LEASE_MS))) return undefined;
  const started = performance.now();
  const rows = Object.fromEntries(RETENTION_KINDS.map((k) => [k, 0])) as Record<RetentionKind, number>;
  const count = (kind: RetentionKind, n: number) => {
    if (!n) return;
    rows[kind] += n;
    o.rows?.(kind, n);
  };
  const pass: Pass = {
    deps,
    holder,
    now,
    cut: retentionCutoffs(now, deps.config.privacyRetention),
    count,
    inTime: () => !o.stopping?.() && performance.now() - started < BUDGET_MS,
  };
  let caughtUp: boolean;
  try {
    const done = [];
    done.push(await eraseDue(pass));
    done.push(await forgetTracks(pass));
    done.push(await expireAuditBodies(pass));
    done.push(await dropKeys(pass));
    done.push(await deleteDue(pass));
    caughtUp = done.every(Boolean);
  } catch (err) {
    const at = deps.clock.now();
    await repo.endPrivacyPass(db, PRIVACY_PASS, holder, at, { failedAt: at }).catch(() => undefined);
    throw err;
  }
  const end = deps.clock.now();
  await repo.endPrivacyPass(db, PRIVACY_PASS, holder, end, caughtUp ? { finishedAt: end } : {});
  return { rows, seconds: (performance.now() - started) / 1000, caughtUp };
}

interface Pass {
  deps: PrivacyRetentionDeps;
  holder: string;
  now: Date;
  cut: ReturnType<typeof retentionCutoffs>;
  count: (kind: RetentionKind, n: number) => void;
  /** Whether the pass may start another batch. */
  inTime: () => boolean;
}

/**
 * Runs `batch` until it reports less than a full batch (true: nothing left), or the kind's batches or time, or the
 * pass's time, run out (false). A batch that changed nothing although it found rows ends it too (false): never a
 * loop.
 */
async function untilDone(p: Pass, batch: () => Promise<{ found: number; changed: number; full: number }>): Promise<boolean> {
  const started = performance.now();
  for (let i = 0; i < MAX_BATCHES && p.inTime() && performance.now() - started < KIND_MS; i += 1) {
    const r = await batch();
    if (r.found < r.full) return true;
    if (r.changed === 0) return false;
  }
  return false;
}

/** 1. Travellers' personal data, once their bookings and orders are over for TRAVELLER_DATA_RETENTION_DAYS. */
async function eraseDue(p: Pass): Promise<boolean> {
  const { db, dataKeys } = p.deps;
  const erase = async (find: typeof repo.bookingsToErase, erase: (tx: Parameters<typeof eraseBooking>[0], ref: string) => Promise<string[] | undefined>) => {
    const r = await db.transaction(async (tx) => {
      const refs = await find(tx, p.cut.travellerData, BATCH);
      const subjects: string[] = [];
      let erased = 0;
      for (const ref of refs) {
        const s = await erase(tx, ref);
        if (!s) continue;
        erased += 1;
        subjects.push(...s);
      }
      return { found: refs.length, changed: erased, subjects };
    });
    // Committed: this instance seals nothing more with their keys.
    dataKeys.erased(r.subjects);
    return { ...r, full: BATCH };
  };
  const bookings = await untilDone(p, async () => {
    const r = await erase(repo.bookingsToErase, async (tx, ref) => {
      const e = await eraseBooking(tx, ref, p.now, { overdueBefore: p.cut.travellerData });
      return e.kind === 'erased' ? e.subjects : undefined;
    });
    p.count('bookings_erased', r.changed);
    return r;
  });
  const orders = await untilDone(p, async () => {
    const r = await erase(repo.ordersToErase, async (tx, id) => {
      const e = await eraseOrder(tx, id, p.now);
      return e.kind === 'erased' ? e.subjects : undefined;
    });
    p.count('orders_erased', r.changed);
    return r;
  });
  return bookings && orders;
}

/** 2. The rides' GPS tracks, RIDE_TRACK_RETENTION_DAYS on. */
async function forgetTracks(p: Pass): Promise<boolean> {
  const { db } = p.deps;
  const positions = await untilDone(p, async () => {
    const n = await repo.deletePositionsBefore(db, p.cut.rideTrack, BULK);
    p.count('positions', n);
    return { found: n, changed: n, full: BULK };
  });
  const last = await untilDone(p, async () => {
    const r = await repo.forgetLastPositionsBefore(db, p.cut.rideTrack, BULK);
    p.count('positions', r.outbox);
    p.count('last_positions', r.jobs + r.bookings);
    const most = Math.max(r.jobs, r.bookings, r.outbox);
    return { found: most, changed: most, full: BULK };
  });
  return positions && last;
}

/**
 * 3. Audit bodies, AUDIT_BODY_RETENTION_DAYS on: each row keeps its digest. The rows are walked in the order they
 * were written, from where a previous pass had expired every body (so no pass reads the years before again).
 */
async function expireAuditBodies(p: Pass): Promise<boolean> {
  const { db } = p.deps;
  let cursor: repo.AuditCursor = { at: (await repo.auditBodiesExpiredBefore(db, p.cut.auditBody)) ?? '-infinity', id: '-1' };
  const done = await untilDone(p, async () => {
    const r = await repo.expireAuditBodies(db, p.cut.auditBody, cursor, BULK);
    p.count('audit_bodies', r.changed);
    if (r.next) cursor = r.next;
    return { found: r.changed, changed: r.changed, full: BULK };
  });
  if (done) await repo.setAuditBodiesExpiredBefore(db, p.holder, p.cut.auditBody);
  return done;
}

/**
 * 3 (continued). Data keys with nothing left to open: each day's before the bodies' cutoff (destroyed: what named
 * no subject, sealed by the day it came), and the keys of quotes and marketplace searches no longer kept, made
 * before it (deleted, tombstones kept: purged unbooked quotes, searches whose price marks are gone).
 */
async function dropKeys(p: Pass): Promise<boolean> {
  const { db } = p.deps;
  const day = p.cut.auditBody.toISOString().slice(0, 10);
  const days = await untilDone(p, async () => {
    const subjects = await repo.dayKeysBefore(db, day, BULK);
    const n = await destroyKeys(db, subjects, p.now);
    p.count('data_keys', n);
    return { found: subjects.length, changed: n, full: BULK };
  });
  const quotes = await untilDone(p, async () => {
    const n = await repo.deleteDataKeys(db, await repo.orphanedQuoteKeys(db, p.cut.auditBody, BULK));
    p.count('data_keys', n);
    return { found: n, changed: n, full: BULK };
  });
  const searches = await untilDone(p, async () => {
    const n = await repo.deleteDataKeys(db, await repo.orphanedSearchKeys(db, p.cut.auditBody, BULK));
    p.count('data_keys', n);
    return { found: n, changed: n, full: BULK };
  });
  return days && quotes && searches;
}

/** 4. Erased bookings and orders, FINANCIAL_RETENTION_YEARS after their ride: deleted with what names them. */
async function deleteDue(p: Pass): Promise<boolean> {
  const { db } = p.deps;
  const bookings = await untilDone(p, async () =>
    db.transaction(async (tx) => {
      const refs = await repo.bookingsToDelete(tx, p.cut.financial, BATCH);
      const n = (await repo.deleteBookings(tx, refs)).bookings ?? 0;
      p.count('bookings_deleted', n);
      return { found: refs.length, changed: n, full: BATCH };
    }),
  );
  const orders = await untilDone(p, async () =>
    db.transaction(async (tx) => {
      const ids = await repo.ordersToDelete(tx, p.cut.financial, BATCH);
      const n = (await repo.deleteOrders(tx, ids)).marketplace_orders ?? 0;
      p.count('orders_deleted', n);
      return { found: ids.length, changed: n, full: BATCH };
    }),
  );
  return bookings && orders;
}

/** One pass, told to `observer` and logged; never throws (a failed pass is retried by the next). */
export async function privacyRetentionOnce(
  deps: PrivacyRetentionDeps & { logger: Logger },
  holder: string,
  observer?: PrivacyRetentionObserver,
  stopping?: () => boolean,
): Promise<PrivacyPass | undefined> {
  try {
    const pass = await runPrivacyRetention(deps, holder, { rows: observer?.rows.bind(observer), stopping });
    if (pass) {
      observer?.passed(pass);
      deps.logger.info({ rows: pass.rows, seconds: pass.seconds, caughtUp: pass.caughtUp }, 'privacy retention pass');
    }
    return pass;
  } catch (err) {
    observer?.failed(err);
    deps.logger.warn({ err }, 'privacy retention pass failed; will retry');
    return undefined;
  }
}

/**
 * Runs the pass every `everyMs` on this instance (the lease keeps it to one instance at a time), the next one
 * sooner when the last left work due; the timers do not keep the process alive. The stopper prevents further
 * passes and batches, and waits for the batch in flight.
 */
export function startPrivacyRetention(
  deps: PrivacyRetentionDeps & { logger: Logger },
  o: { holder: string; everyMs: number; observer?: PrivacyRetentionObserver },
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    const pass = privacyRetentionOnce(deps, o.holder, o.observer, () => stopped);
    inFlight = pass;
    void pass.then((r) => schedule(r && !r.caughtUp ? Math.min(o.everyMs, CATCH_UP_MS) : o.everyMs));
  };
  schedule(o.everyMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await inFlight;
  };
}
