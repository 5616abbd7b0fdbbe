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
      `If you cannot find the driver, call the emergency number.`
    );
  }
  return (
    `Your driver meets you at the main entrance (lobby) of ${m.pickupName} at ${localTime(m.pickupDatetime)} local time ` +
    `on ${m.pickupDatetime.slice(0, 10)}, holding a name board reading '${m.passengerName}', waits up to 15 minutes, ` +
    `and takes you to ${m.dropoffName}. If you cannot find the driver, call the emergency number.`
  );
}
