/**
 * In-process benchmark of the pure quoting engine: place resolution + routing + pricing, one core.
 * Build and run:  npx tsc -p tsconfig.json --outDir /tmp/qb && node /tmp/qb/bench/quote-engine.bench.js
 *            or:  node dist/bench/quote-engine.bench.js after a build into dist/.
 * Options: --seconds=<n> per measurement (default 3). Exits 1 if below the 20,000 quotes/s target.
 */
import type { PlaceInput } from '../src/domain/geo/types';
import type { Currency } from '../src/domain/kernel/money';
import { quoteJourney, type QuoteRequest } from '../src/domain/pricing/price-journey';

const TARGET_QUOTES_PER_SEC = 20_000;
const seconds = Number(process.argv.find((a) => a.startsWith('--seconds='))?.split('=')[1] ?? 3);

const airports: PlaceInput[] = [
  { iata: 'CMB' },
  { iata: 'cmb' },
  { name: 'Bandaranaike International Airport' },
  { name: 'Colombo Airport' },
  { iata: 'HRI' },
  { name: 'Katunayake' },
];
const names: PlaceInput[] = [
  { name: 'Kandy' },
  { name: 'Galle' },
  { name: 'Ella' },
  { name: 'Nuwara Eliya' },
  { name: 'Sigiriya' },
  { name: 'Mirissa' },
  { name: 'Trinco' },
  { name: 'Arugam Bay' },
  { name: 'Negombo' },
  { name: 'Hikkaduwa' },
  { name: 'NUWARA-ELIYA' },
  { name: 'Unawatuna' },
  { name: 'Yala' },
  { name: 'Dambulla' },
  { name: 'Bentota' },
  { name: 'Pasikudah' },
  { name: 'Anuradhapura' },
  { name: 'Jaffna' },
];
const hotels: PlaceInput[] = [
  { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
  { name: 'Jetwing Lighthouse, Galle' },
  { name: 'Galle Face Hotel, 2 Galle Road, Colombo 3' },
  { name: 'Earl’s Regency Hotel, Tennekumbura, Kandy' },
  { name: '98 Acres Resort & Spa, Passara Road, Ella' },
  { name: 'Heritance Ahungalla, Galle Road, Ahungalla' },
  { name: 'Thaproban Pavilion, Unawatuna Beach, Galle' },
  { name: 'Jetwing Beach, Ethukala, Negombo' },
  { name: 'Cape Weligama, Kusumgiri Road, Weligama' },
  { name: 'Amangalla, 10 Church Street, Galle Fort' },
];
const points: PlaceInput[] = [
  { lat: 7.2906, lon: 80.6336 },
  { lat: 6.0269, lon: 80.2168, name: 'Galle Fort villa' },
  { lat: 6.8756, lon: 81.0463 },
  { lat: 5.9466, lon: 80.4583 },
  { lat: 6.9, lon: 79.86 },
  { lat: 7.95, lon: 80.75, name: 'Sigiriya homestay' },
  { lat: 8.99, lon: 79.88 },
];
const awkward: PlaceInput[] = [{ name: 'Hotel California' }, { name: 'Kandy to Galle' }, { lat: 13.08, lon: 80.27 }, { name: 'Hikkaduwwa' }];

/** A deterministic mix: mostly airport transfers, then town-to-town, a few declines. */
function buildRequests(): QuoteRequest[] {
  const ends = [...names, ...hotels, ...points];
  const currencies: Currency[] = ['USD', 'USD', 'EUR', 'LKR'];
  const fx = { EUR: '0.92', LKR: '300.50' };
  const out: QuoteRequest[] = [];
  for (let i = 0; i < 512; i++) {
    const other = ends[(i * 7) % ends.length];
    const airport = airports[i % airports.length];
    let pickup: PlaceInput;
    let dropoff: PlaceInput;
    if (i % 10 < 6) [pickup, dropoff] = i % 2 === 0 ? [airport, other] : [other, airport];
    else if (i % 10 < 9) [pickup, dropoff] = [other, ends[(i * 13 + 5) % ends.length]];
    else [pickup, dropoff] = [awkward[Math.floor(i / 10) % awkward.length], other];
    out.push({
      pickup,
      dropoff,
      adults: 1 + (i % 6),
      luggage: i % 5,
      currency: currencies[i % currencies.length],
      fx,
      ...(i % 8 === 0 ? { vehicleFilter: ['standard_car', 'standard_van', 'suv'] } : {}),
    });
  }
  return out;
}

interface Measurement {
  ops: number;
  elapsedSec: number;
}

function measure(label: string, requests: readonly QuoteRequest[], op: (r: QuoteRequest) => number): Measurement {
  let sink = 0;
  const warmUntil = process.hrtime.bigint() + 1_000_000_000n;
  for (let i = 0; process.hrtime.bigint() < warmUntil; i++) sink += op(requests[i % requests.length]);
  const budget = BigInt(Math.round(seconds * 1e9));
  const start = process.hrtime.bigint();
  let ops = 0;
  let now = start;
  while (now - start < budget) {
    for (let k = 0; k < 1024; k++, ops++) sink += op(requests[ops % requests.length]);
    now = process.hrtime.bigint();
  }
  const elapsedSec = Number(now - start) / 1e9;
  if (sink === Number.MIN_SAFE_INTEGER) console.log(label, sink); // keeps the work observable
  return { ops, elapsedSec };
}

function report(label: string, m: Measurement): number {
  const perSec = m.ops / m.elapsedSec;
  console.log(
    `${label.padEnd(34)} ${Math.round(perSec).toLocaleString('en-US').padStart(12)} ops/s ${((1e6 * m.elapsedSec) / m.ops).toFixed(2).padStart(8)} µs/op`,
  );
  return perSec;
}

function main(): void {
  const requests = buildRequests();
  const outcomes = requests.map((r) => quoteJourney(r));
  const declines = outcomes.filter((o) => !o.ok).length;
  console.log(
    `quote-engine bench: node ${process.version}, ${requests.length} distinct requests (${declines} decline), ${seconds}s per run after 1s warm-up, one core`,
  );

  const baseline = measure('baseline', requests, (r) => JSON.stringify(JSON.parse(JSON.stringify(r))).length);
  const quotes = measure('quotes', requests, (r) => {
    const q = quoteJourney(r);
    return q.ok ? q.offers.length + q.distance_km : 0;
  });

  report('baseline JSON.parse+stringify', baseline);
  const qps = report('resolve + route + price (quote)', quotes);
  console.log(`quote costs ${(baseline.ops / baseline.elapsedSec / qps).toFixed(1)}× the JSON round trip of its own request`);
  console.log(`target ≥ ${TARGET_QUOTES_PER_SEC.toLocaleString('en-US')} quotes/s: ${qps >= TARGET_QUOTES_PER_SEC ? 'met' : 'NOT met'}`);
  if (qps < TARGET_QUOTES_PER_SEC) process.exitCode = 1;
}

main();
