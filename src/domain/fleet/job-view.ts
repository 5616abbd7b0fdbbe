import type { JobPlace, JobRow, JobStatus } from '../../data/repositories/jobs-repository';
import { storedFleetCode, type FleetCode } from './fleet';
import { EXTRA_CODES, type ExtraCode } from '../pricing/extras';

/** A job as operators see it (the ops API and its dispatch board), whoever it is for. */
export interface JobView {
  job_id: string;
  source: 'partner' | 'marketplace';
  booking_ref: string | null;
  order_id: string | null;
  fleet_code: FleetCode;
  status: JobStatus;
  pickup_at: string;
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
  last_location: { lat: number; lon: number; at: string } | null;
  released: { reason: string; at: string } | null;
}

export function jobView(j: JobRow): JobView {
  const partner = j.source === 'partner_booking';
  return {
    job_id: j.jobId,
    source: partner ? 'partner' : 'marketplace',
    booking_ref: partner ? j.sourceRef : null,
    order_id: partner ? null : j.sourceRef,
    fleet_code: storedFleetCode(j.fleetCode),
    status: j.status,
    pickup_at: new Date(j.pickupAt).toISOString(),
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
    last_location: j.lastLocation ? { lat: j.lastLocation.lat, lon: j.lastLocation.lon, at: j.lastLocation.at.toISOString() } : null,
    released: j.released ? { reason: j.released.reason, at: j.released.at.toISOString() } : null,
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
