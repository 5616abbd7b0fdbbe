import type { Sql } from '../../data/database';
import { registerDriver, registerVehicle } from './registry';

/**
 * The embedded demo's fleet, seeded on its first start: a small Colombo operator's vehicles (typical Sri Lankan
 * transfer models, Western Province plates) and the drivers who drive them.
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

const DRIVERS: Array<[string, string, string[]]> = [
  ['Sunil Fernando', '+94 77 123 4567', ['si', 'en']],
  ['Mohamed Rizwan', '+94 71 234 5678', ['ta', 'si', 'en']],
  ['Chaminda Perera', '+94 76 345 6789', ['si', 'en', 'de']],
  ['Arun Kumar', '+94 75 456 7890', ['ta', 'en']],
  ['Nuwan Jayasinghe', '+94 70 567 8901', ['si', 'en']],
  ['Dilshan Silva', '+94 72 678 9012', ['si', 'en', 'ru']],
  ['Priya Rajapaksa', '+94 78 789 0123', ['si', 'en']],
  ['Kasun Bandara', '+94 77 890 1234', ['si', 'en', 'fr']],
];

export async function seedDemoFleet(tx: Sql, now: Date): Promise<{ vehicles: number; drivers: number }> {
  for (const [fleet_code, plate, brand, model, colour] of VEHICLES) await registerVehicle(tx, { fleet_code, plate, brand, model, colour }, now);
  for (const [name, phone, languages] of DRIVERS) await registerDriver(tx, { name, phone, languages }, now);
  return { vehicles: VEHICLES.length, drivers: DRIVERS.length };
}
