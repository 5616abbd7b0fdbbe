import type { Sql } from '../../data/database';
import { registerDriver, registerVehicle, updateDriver } from './registry';
import { setShifts } from '../drivers/driver-shifts';
import type { WeeklyShift } from '../drivers/shifts';

/**
 * The embedded demo's fleet, seeded on its first start: a small Colombo operator's vehicles (typical Sri Lankan
 * transfer models, Western Province plates) and the drivers who drive them, each with a base in Colombo, Negombo
 * (by the airport), Kandy or Galle, the vehicle they usually drive, and hours: days, and two airport night shifts.
 */
const VEHICLES = [
  ['small_car', 'CAQ-3412', 'Suzuki', 'Wagon R', 'silver'],
  ['standard_car', 'CBG-7781', 'Toyota', 'Axio', 'white'],
  ['standard_car', 'CBH-2045', 'Toyota', 'Axio', 'pearl white'],
  ['standard_car', 'CAZ-9930', 'Toyota', 'Prius', 'grey'],
  ['premium_car', 'CBK-1106', 'Mercedes-Benz', 'E-Class', 'black'],
  ['suv', 'CAW-4587', 'Mitsubishi', 'Montero', 'white'],
  ['standard_van', 'PH-6218', 'Toyota', 'HiAce KDH', 'white'],
  ['standard_van', 'PH-7034', 'Toyota', 'HiAce KDH', 'silver'],
  ['premium_van', 'PJ-1190', 'Toyota', 'HiAce Luxury', 'black'],
  ['large_van', 'PK-3321', 'Nissan', 'Caravan', 'white'],
  ['standard_bus', 'NB-5512', 'Toyota', 'Coaster', 'white'],
] as const;

type Hours = 'days' | 'nights';
/** Name, phone, languages, base, hours, and the plate of the vehicle they usually drive. */
const DRIVERS: Array<[string, string, string[], string, Hours, string]> = [
  ['Sunil Fernando', '+94 77 123 4567', ['si', 'en'], 'Negombo', 'days', 'CBG-7781'],
  ['Mohamed Rizwan', '+94 71 234 5678', ['ta', 'si', 'en'], 'Colombo', 'days', 'CBH-2045'],
  ['Chaminda Perera', '+94 76 345 6789', ['si', 'en', 'de'], 'Kandy', 'days', 'CAW-4587'],
  ['Arun Kumar', '+94 75 456 7890', ['ta', 'en'], 'Colombo', 'days', 'PH-6218'],
  ['Nuwan Jayasinghe', '+94 70 567 8901', ['si', 'en'], 'Negombo', 'nights', 'CAZ-9930'],
  ['Dilshan Silva', '+94 72 678 9012', ['si', 'en', 'ru'], 'Galle', 'days', 'CBK-1106'],
  ['Priya Rajapaksa', '+94 78 789 0123', ['si', 'en'], 'Colombo', 'days', 'CAQ-3412'],
  ['Kasun Bandara', '+94 77 890 1234', ['si', 'en', 'fr'], 'Negombo', 'nights', 'PH-7034'],
];

/** Days: 06:00–20:00. Nights (the airport's arrivals): 20:00–08:00. Every day: the demo can start on any. */
const HOURS: Record<Hours, WeeklyShift[]> = {
  days: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, starts: '06:00', ends: '20:00' })),
  nights: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, starts: '20:00', ends: '08:00' })),
};

export async function seedDemoFleet(tx: Sql, now: Date): Promise<{ vehicles: number; drivers: number }> {
  const plates = new Map<string, string>();
  for (const [fleet_code, plate, brand, model, colour] of VEHICLES) {
    plates.set(plate, (await registerVehicle(tx, { fleet_code, plate, brand, model, colour }, now)).vehicle_id);
  }
  for (const [name, phone, languages, base, hours, plate] of DRIVERS) {
    const d = await registerDriver(tx, { name, phone, languages }, now);
    await updateDriver(tx, d.driver_id, { base: { name: base }, usual_vehicle_id: plates.get(plate) });
    await setShifts(tx, d.driver_id, { weekly: HOURS[hours], exceptions: [] }, now);
  }
  return { vehicles: VEHICLES.length, drivers: DRIVERS.length };
}
