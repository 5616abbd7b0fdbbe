import type { FlightAlert, JobFlight, JobPlace, JobRow, JobStatus, RideProgress } from '../../data/repositories/jobs-repository';
import { LATE_IF_NOT_EN_ROUTE_MS } from '../kernel/ride-rules';
import { storedFleetCode, type FleetCode } from '../kernel/fleet';
import { EXTRA_CODES, type ExtraCode } from '../kernel/seats';

/** A job as operators see it (the ops API and its dispatch board), whoever it is for. */
export interface JobView {
  job_id: string;
  source: 'partner' | 'marketplace';
  booking_ref: string | null;
  order_id: string | null;
  fleet_code: FleetCode;
  /** The job's state: its dispatch, or how far the ride has gone while assigned. */
  status: JobStatus | RideProgress;
  /** The booked pickup. */
  pickup_at: string;
  /** The pickup moved by the flight's estimated arrival (null while not moved); the window runs from it. */
  pickup_estimated_at: string | null;
  dropoff_at: string;
  ends_at: string;
  pickup: JobPlace;
  dropoff: JobPlace;
  passengers: { adults: number; children: number; luggage: number };
  extras: Array<{ code: ExtraCode; quantity: number }>;
  passenger: { name: string; phone: string | null };
  flight_number: string | null;
  notes: string | null;
  meeting_instructions: string | null;
  driver: { driver_id: string; name: string; phone: string } | null;
  vehicle: { vehicle_id: string; fleet_code: FleetCode; plate: string; brand: string; model: string; colour: string } | null;
  /** By hand (a plan never moves it) or by a plan (applied by an operator or the automatic pass). */
  assigned_by: 'operator' | 'plan' | null;
  last_location: { lat: number; lon: number; at: string } | null;
  released: { reason: string; at: string } | null;
  ride: { en_route_at: string | null; arrived_at: string | null; on_board_at: string | null };
  flight: JobFlight | null;
  /** What the dispatcher should look at now. */
  alerts: JobAlert[];
}

export type JobAlert = 'late' | FlightAlert;

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** What needs the dispatcher now: a driver not on the way 30 minutes before pickup, a flight's trouble. */
function alerts(j: JobRow, now: Date): JobAlert[] {
  const out: JobAlert[] = [];
  const pickupAt = new Date(j.pickupAt).getTime();
  const open = j.status === 'confirmed' || j.status === 'driver_assigned';
  if (open && !j.ride && now.getTime() >= pickupAt - LATE_IF_NOT_EN_ROUTE_MS) out.push('late');
  if (open && j.flightAlert) out.push(j.flightAlert);
  return out;
}

export function jobView(j: JobRow, now: Date): JobView {
  const partner = j.source === 'partner_booking';
  const shift = j.pickupShiftMin * 60_000;
  return {
    job_id: j.jobId,
    source: partner ? 'partner' : 'marketplace',
    booking_ref: partner ? j.sourceRef : null,
    order_id: partner ? null : j.sourceRef,
    fleet_code: storedFleetCode(j.fleetCode),
    status: j.status === 'driver_assigned' && j.ride ? j.ride : j.status,
    pickup_at: new Date(new Date(j.pickupAt).getTime() - shift).toISOString(),
    pickup_estimated_at: shift ? new Date(j.pickupAt).toISOString() : null,
    dropoff_at: new Date(j.dropoffAt).toISOString(),
    ends_at: new Date(j.endsAt).toISOString(),
    pickup: jobPlace(j.pickup),
    dropoff: jobPlace(j.dropoff),
    passengers: { adults: j.adults, children: j.children, luggage: j.luggage },
    extras: EXTRA_CODES.flatMap((code) => ((j.seats[code] ?? 0) > 0 ? [{ code, quantity: j.seats[code] ?? 0 }] : [])),
    passenger: { name: j.passenger?.name ?? '', phone: j.passenger?.phone ?? null },
    flight_number: j.flightNumber,
    notes: j.notes,
    meeting_instructions: j.meetingInstructions,
    driver: j.driver ? { driver_id: j.driver.driverId, name: j.driver.name, phone: j.driver.phone } : null,
    vehicle: j.vehicle
      ? {
          vehicle_id: j.vehicle.vehicleId,
          fleet_code: storedFleetCode(j.vehicle.fleetCode),
          plate: j.vehicle.plate,
          brand: j.vehicle.brand,
          model: j.vehicle.model,
          colour: j.vehicle.colour,
        }
      : null,
    assigned_by: j.driver ? (j.assignedBy ?? 'operator') : null,
    last_location: j.lastLocation ? { lat: j.lastLocation.lat, lon: j.lastLocation.lon, at: j.lastLocation.at.toISOString() } : null,
    released: j.released ? { reason: j.released.reason, at: j.released.at.toISOString() } : null,
    ride: { en_route_at: iso(j.enRouteAt), arrived_at: iso(j.arrivedAt), on_board_at: iso(j.onBoardAt) },
    flight: j.flight
      ? {
          number: j.flight.number,
          status: j.flight.status,
          scheduled_arrival: j.flight.scheduled_arrival,
          estimated_arrival: j.flight.estimated_arrival,
          checked_at: j.flight.checked_at,
        }
      : null,
    alerts: alerts(j, now),
  };
}

/** jsonb does not keep key order: the place is rebuilt so a job reads the same bytes every time. */
const jobPlace = (p: JobPlace): JobPlace => ({
  name: p.name,
  resolved_name: p.resolved_name ?? p.name,
  ...(p.iata ? { iata: p.iata } : {}),
  lat: p.lat,
  lon: p.lon,
});
