import type { Seats } from '../../data/repositories/fleet-repository';

/** Seats for children a vehicle can carry, fitted before pickup. */
export type ExtraCode = 'infant_seat' | 'child_seat' | 'booster_seat';
export const EXTRA_CODES: readonly ExtraCode[] = ['infant_seat', 'child_seat', 'booster_seat'];

/** Seats of one kind, as a partner asks for them (`{"code": "child_seat", "quantity": 1}`). */
export interface ExtraRequest {
  code: ExtraCode;
  quantity: number;
}

/** Seats by kind, as a job and a vehicle count them (`{"child_seat": 1}`). */
export type SeatCounts = Seats;

export const seatCounts = (extras: readonly ExtraRequest[]): SeatCounts => Object.fromEntries(extras.map((e) => [e.code, e.quantity]));

/** The seats a vehicle lacks for a job (empty when it carries them all). */
export function missingSeats(needed: SeatCounts, carried: SeatCounts): SeatCounts {
  return Object.fromEntries(EXTRA_CODES.flatMap((k) => ((needed[k] ?? 0) > (carried[k] ?? 0) ? [[k, (needed[k] ?? 0) - (carried[k] ?? 0)]] : [])));
}
