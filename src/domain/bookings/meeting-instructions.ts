import { EXTRA_CODES, type ExtraCode, type SeatCounts } from '../kernel/seats';

export interface MeetingContext {
  journeyType: 'arrival' | 'departure' | 'point_to_point';
  /** The pickup and drop-off as the customer gave them (a hotel's name and address, say). */
  pickupName: string;
  dropoffName: string;
  iata?: string;
  passengerName: string;
  flightNumber?: string | null;
  /** The pickup time as the partner wrote it (local, with offset). */
  pickupDatetime: string;
  /** Children's seats fitted for the journey. */
  seats?: SeatCounts;
}

const SEAT_NAMES: Record<ExtraCode, [string, string]> = {
  infant_seat: ['infant seat', 'infant seats'],
  child_seat: ['child seat', 'child seats'],
  booster_seat: ['booster seat', 'booster seats'],
};

/** "The car has a child seat and 2 booster seats fitted. " (empty without seats). */
function seatsSentence(seats: SeatCounts = {}): string {
  const parts = EXTRA_CODES.flatMap((k) => {
    const n = seats[k] ?? 0;
    return n > 0 ? [n === 1 ? `a ${SEAT_NAMES[k][0]}` : `${n} ${SEAT_NAMES[k][1]}`] : [];
  });
  if (!parts.length) return '';
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return `The car has ${list} fitted. `;
}

const localTime = (iso: string) => {
  const m = /T(\d{2}:\d{2})/.exec(iso);
  return m ? m[1] : iso;
};

/** Where and how the driver meets the passenger, written for the journey. */
export function meetingInstructions(m: MeetingContext): string {
  if (m.journeyType === 'arrival') {
    const airport = m.iata ? `${m.pickupName} (${m.iata})` : m.pickupName;
    const flight = m.flightNumber ? `flight ${m.flightNumber}` : 'your flight';
    return (
      `Your driver waits in the arrivals hall of ${airport}, outside the customs exit, holding a name board reading ` +
      `'${m.passengerName}'. We track ${flight} and move the pickup to the actual landing time at no charge; ` +
      `the driver waits up to 60 minutes after landing, then takes you to ${m.dropoffName}. ` +
      seatsSentence(m.seats) +
      `If you cannot find the driver, call the emergency number.`
    );
  }
  return (
    `Your driver meets you at the main entrance (lobby) of ${m.pickupName} at ${localTime(m.pickupDatetime)} local time ` +
    `on ${m.pickupDatetime.slice(0, 10)}, holding a name board reading '${m.passengerName}', waits up to 15 minutes, ` +
    `and takes you to ${m.dropoffName}. ${seatsSentence(m.seats)}If you cannot find the driver, call the emergency number.`
  );
}
