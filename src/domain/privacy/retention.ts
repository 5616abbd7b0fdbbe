import type { Config } from '../../config/env';
import type { Database } from '../../data/database';
import * as repo from '../../data/repositories/privacy-retention-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { DataKeys } from '../kernel/data-keys';
import {
  deleteDue,
  deleteExpiredAgentConfirmations,
  dropKeys,
  eraseDue,
  expireAuditBodies,
  forgetTracks,
  RETENTION_KINDS,
  retentionCutoffs,
  type Pass,
  type RetentionKind,
} from './retention-kinds';

export { RETENTION_KINDS, retentionCutoffs, type RetentionKind };

/** The lease row of the pass in `privacy_passes`. */
export const PRIVACY_PASS = 'privacy';
/** The pass is this instance's for this long (a crashed instance's pass is run by another after it). */
const LEASE_MS = 10 * 60_000;
/** A pass starts no new batch after this long (well within its lease); what is left is the next pass's. */
const BUDGET_MS = 2 * 60_000;
/** Batches of one kind per pass, at most, and the time they may take: no kind's backlog starves the others. */
const MAX_BATCHES = 50;
const KIND_MS = BUDGET_MS / 5;
/** After a pass that left work due, the next one runs this soon (or at the usual interval, if sooner). */
const CATCH_UP_MS = 30_000;

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
 * 4. erased bookings and orders FINANCIAL_RETENTION_YEARS after their ride: deleted with what names them;
 * 5. AI agents' confirmation tokens an hour after they expired: deleted (one never used holds a booking's details).
 * The kinds and their batches: retention-kinds.ts.
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
    kindLimit: { batches: MAX_BATCHES, ms: KIND_MS },
  };
  let caughtUp: boolean;
  try {
    const done = [];
    done.push(await eraseDue(pass));
    done.push(await forgetTracks(pass));
    done.push(await expireAuditBodies(pass));
    done.push(await dropKeys(pass));
    done.push(await deleteDue(pass));
    done.push(await deleteExpiredAgentConfirmations(pass));
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
