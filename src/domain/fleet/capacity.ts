import type { Sql } from '../../data/database';
import { fleetRegistered, freeClasses } from '../../data/repositories/fleet-repository';
import type { SeatCounts } from '../kernel/seats';
import type { Clock } from '../../shared/clock';

/** How long an instance trusts its knowledge that no vehicle is registered (quoting only: bookings always ask). */
const REGISTERED_TTL_MS = 5_000;

/**
 * What production quoting may offer: the classes with a vehicle free for a journey's window. Advisory: a booking
 * checks again, under the class's lock, in the database (fleet_has_room). With no vehicle registered at all the
 * fleet table alone decides, and this answers null (no limit).
 */
export class FleetCapacity {
  private registered = false;
  private knownUntil = 0;

  /** `clock`: the service's (a test's manual clock decides when the knowledge goes stale, not the machine's load). */
  constructor(private readonly clock: Clock) {}

  async freeClasses(db: Sql, from: Date, to: Date, seats: SeatCounts = {}, exceptJob: string | null = null): Promise<ReadonlySet<string> | null> {
    const now = this.clock.now().getTime();
    if (now >= this.knownUntil) {
      this.registered = await fleetRegistered(db);
      this.knownUntil = now + REGISTERED_TTL_MS;
    }
    if (!this.registered) return null;
    return new Set(await freeClasses(db, from, to, seats, exceptJob));
  }

  /** After a vehicle is registered or withdrawn here, ask again at the next quote. */
  forget(): void {
    this.knownUntil = 0;
  }
}
