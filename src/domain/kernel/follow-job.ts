import type { Tx } from '../../data/database';
import type { JobRecord, JobRow, JobSource } from '../../data/repositories/jobs-repository';

/** Why a change released a job's driver and vehicle. */
export type ReleaseReason = 'overlap' | 'vehicle_too_small' | 'vehicle_lacks_equipment';

/**
 * The port through which a change of what a job serves (a partner's booking, a marketplace order) reaches its job on
 * the fleet's schedule: `changed` makes the job's new record from the job as it is; answers the reason its driver
 * and vehicle were released, or null. The fleet's followChange (src/domain/fleet/follow-change.ts) implements it;
 * the surfaces hand it to the use cases that change bookings and orders, so that neither imports the fleet.
 */
export type FollowJob = (tx: Tx, of: { source: JobSource; sourceRef: string }, changed: (job: JobRow) => JobRecord, now: Date) => Promise<ReleaseReason | null>;
