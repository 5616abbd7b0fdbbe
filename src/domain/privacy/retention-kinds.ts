import type { Config } from '../../config/env';
import type { Database } from '../../data/database';
import { deleteExpiredConfirmations } from '../../data/repositories/agents-repository';
import * as repo from '../../data/repositories/privacy-retention-repository';
import { destroyKeys } from '../../data/repositories/personal-data-keys-repository';
import type { DataKeys } from '../kernel/data-keys';
import { eraseBooking, eraseOrder } from './erase';

/**
 * The kinds of the privacy retention pass, each in batches: what is due (each kind's cutoff back from the pass's
 * clock), and how a kind goes through its backlog one batch at a time until nothing is left or its share of the
 * pass runs out. The pass itself (its lease, its budget, its schedule, what it tells the metrics): retention.ts.
 */

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
  'agent_confirmations',
] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** Bookings or orders erased (or deleted) per transaction. */
const BATCH = 100;
/** Rows changed per statement where each is one row's change (positions, audit bodies, keys, confirmations). */
const BULK = 1000;

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** An AI agent's confirmation token (valid 10 minutes) is kept this long after it expired, then deleted. */
const CONFIRMATION_KEPT_MS = HOUR_MS;

/** The cutoffs of one pass: each kind's retention back from the service's clock. */
export function retentionCutoffs(now: Date, r: Config['privacyRetention']) {
  const financial = new Date(now);
  financial.setUTCFullYear(financial.getUTCFullYear() - r.financialYears);
  return {
    travellerData: new Date(now.getTime() - r.travellerDataDays * DAY_MS),
    rideTrack: new Date(now.getTime() - r.rideTrackDays * DAY_MS),
    auditBody: new Date(now.getTime() - r.auditBodyDays * DAY_MS),
    financial,
    agentConfirmations: new Date(now.getTime() - CONFIRMATION_KEPT_MS),
  };
}

/** One pass, as its kinds see it. */
export interface Pass {
  deps: { db: Database; dataKeys: DataKeys };
  holder: string;
  now: Date;
  cut: ReturnType<typeof retentionCutoffs>;
  count: (kind: RetentionKind, n: number) => void;
  /** Whether the pass may start another batch. */
  inTime: () => boolean;
  /** Batches of one kind per pass, at most, and the time they may take: no kind's backlog starves the others. */
  kindLimit: { batches: number; ms: number };
}

/**
 * Runs `batch` until it reports less than a full batch (true: nothing left), or the kind's batches or time, or the
 * pass's time, run out (false). A batch that changed nothing although it found rows ends it too (false): never a
 * loop.
 */
async function untilDone(p: Pass, batch: () => Promise<{ found: number; changed: number; full: number }>): Promise<boolean> {
  const started = performance.now();
  for (let i = 0; i < p.kindLimit.batches && p.inTime() && performance.now() - started < p.kindLimit.ms; i += 1) {
    const r = await batch();
    if (r.found < r.full) return true;
    if (r.changed === 0) return false;
  }
  return false;
}

/** 1. Travellers' personal data, once their bookings and orders are over for TRAVELLER_DATA_RETENTION_DAYS. */
export async function eraseDue(p: Pass): Promise<boolean> {
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
export async function forgetTracks(p: Pass): Promise<boolean> {
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
export async function expireAuditBodies(p: Pass): Promise<boolean> {
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
export async function dropKeys(p: Pass): Promise<boolean> {
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
export async function deleteDue(p: Pass): Promise<boolean> {
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

/**
 * 5. AI agents' confirmation tokens (agent_confirmations), an hour after they expired: deleted. One never used still
 * holds the traveller's booking details it was to confirm; one used holds none, and nothing more to check.
 */
export async function deleteExpiredAgentConfirmations(p: Pass): Promise<boolean> {
  const { db } = p.deps;
  return untilDone(p, async () => {
    const n = await deleteExpiredConfirmations(db, p.cut.agentConfirmations, BULK);
    p.count('agent_confirmations', n);
    return { found: n, changed: n, full: BULK };
  });
}
