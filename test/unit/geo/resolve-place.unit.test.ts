import airportsData from '../../../src/domain/geo/data/airports.json';
import { resolvePlace } from '../../../src/domain/geo/resolve-place';
import type { PlaceInput, PlaceResolution, ResolvedPlace } from '../../../src/domain/geo/types';

function resolved(input: PlaceInput): ResolvedPlace {
  const r = resolvePlace(input);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(input)} to resolve, got ${r.reason}: ${r.message}`);
  return r.place;
}

function failure(input: PlaceInput): Extract<PlaceResolution, { ok: false }> {
  const r = resolvePlace(input);
  if (r.ok) throw new Error(`expected ${JSON.stringify(input)} to fail, got ${r.place.place_id}`);
  return r;
}

describe('resolvePlace by IATA code', () => {
  it('when the code is CMB, then it is Bandaranaike airport at its terminal pickup point', () => {
    const p = resolved({ iata: 'CMB' });
    expect(p).toMatchObject({ kind: 'airport', iata: 'CMB', place_id: 'airport:CMB', source: 'iata', name: 'Bandaranaike International Airport' });
    expect(p.lat).toBeCloseTo(7.174016, 5);
    expect(p.lon).toBeCloseTo(79.887887, 5);
  });

  it('when the code is HRI in lower case with spaces, then it is Mattala airport', () => {
    expect(resolved({ iata: ' hri ' })).toMatchObject({ kind: 'airport', iata: 'HRI', place_id: 'airport:HRI' });
  });

  it('when the code is any Sri Lankan IATA code, then it resolves to that airport', () => {
    const codes = airportsData.airports.flatMap((a) => (a.iata ? [a.iata] : []));
    expect(codes).toHaveLength(25);
    for (const code of codes) expect(resolved({ iata: code })).toMatchObject({ iata: code, kind: 'airport' });
  });

  it.each(['MAA', 'DXB', 'XYZ', 'KDY', 'C M B', '12'])('when the code is %s (not a Sri Lankan airport), then it is unknown', (iata) => {
    const f = failure({ iata });
    expect(f.reason).toBe('unknown');
    expect(f.message).toMatch(/lat\/lon/);
  });

  it('when a non-Sri-Lankan code comes with a Sri Lankan name, then the code still wins and fails', () => {
    expect(failure({ iata: 'MAA', name: 'Colombo' }).reason).toBe('unknown');
  });
});

describe('resolvePlace by airport name', () => {
  it.each([
    'Bandaranaike International Airport',
    'bandaranaike international airport (CMB)',
    'Colombo Airport',
    'Katunayake',
    'Katunayake Airport',
    'BIA',
    'CMB',
    'Negombo Airport',
    'Arrivals hall, Bandaranaike International Airport, Katunayake',
  ])('when the name is "%s", then it is the CMB airport', (name) => {
    expect(resolved({ name })).toMatchObject({ place_id: 'airport:CMB', iata: 'CMB', kind: 'airport', source: 'name' });
  });

  it.each([
    ['Mattala Airport', 'HRI'],
    ['Hambantota International Airport', 'HRI'],
    ['Ratmalana Airport', 'RML'],
    ['Jaffna International Airport', 'JAF'],
    ['Palaly', 'JAF'],
    ['Bentota River Waterdrome', 'BJT'],
  ])('when the name is "%s", then it is airport %s', (name, iata) => {
    expect(resolved({ name })).toMatchObject({ iata, kind: 'airport' });
  });

  it('when the name is a town with an airfield (Koggala, Ratmalana), then it is the town, not the airport', () => {
    expect(resolved({ name: 'Koggala' })).toMatchObject({ place_id: 'place:koggala', kind: 'town' });
    expect(resolved({ name: 'Ratmalana' })).toMatchObject({ place_id: 'place:ratmalana', kind: 'town' });
  });
});

describe('resolvePlace by place name', () => {
  it.each([
    ['Kandy', 'place:kandy'],
    ['KANDY', 'place:kandy'],
    ['  kandy  ', 'place:kandy'],
    ['Mahanuwara', 'place:kandy'],
    ['Candy', 'place:kandy'],
    ['Nuwara Eliya', 'place:nuwara-eliya'],
    ['NUWARA-ELIYA', 'place:nuwara-eliya'],
    ['Nuwara Élíya', 'place:nuwara-eliya'],
    ['nuwaraeliya', 'place:nuwara-eliya'],
    ['Trinco', 'place:trincomalee'],
    ['Kolamba', 'place:colombo'],
    ['Seegiriya', 'place:sigiriya'],
    ["Adam's Peak", 'place:adams-peak'],
    ['Adams Peak', 'place:adams-peak'],
    ['Sri Páda', 'place:adams-peak'],
    ['Arugambay', 'place:arugam-bay'],
    ['A-Bay', 'place:arugam-bay'],
    ['Ja-Ela', 'place:ja-ela'],
    ['Jaela', 'place:ja-ela'],
    ['Yala', 'place:yala-gate'],
    ['Tissa', 'place:tissamaharama'],
    ['Pinnawela', 'place:pinnawala'],
    ['Hikkaduwwa', 'place:hikkaduwa'],
    ['Anuradapura', 'place:anuradhapura'],
  ])('when the name is "%s", then it resolves to %s', (name, placeId) => {
    expect(resolved({ name })).toMatchObject({ place_id: placeId, source: 'name' });
  });

  it('when a name resolves, then the place carries the gazetteer kind, position and district', () => {
    expect(resolved({ name: 'Unawatuna' })).toEqual({
      name: 'Unawatuna',
      lat: 6.0212,
      lon: 80.2503,
      kind: 'beach',
      place_id: 'place:unawatuna',
      source: 'name',
      district: 'Galle',
    });
  });
});

describe('resolvePlace for hotel addresses', () => {
  it.each([
    ['Cinnamon Grand, 77 Galle Road, Colombo 03', 'place:colombo'],
    ['Jetwing Lighthouse, Galle', 'place:galle'],
    ['Galle Face Hotel, 2 Galle Road, Colombo 3', 'place:colombo'],
    ['Hilton Colombo Residences, 200 Union Place, Colombo 00200', 'place:colombo'],
    ['Taj Samudra, 25 Galle Face Centre Road, Colombo', 'place:colombo'],
    ['Earl’s Regency Hotel, Tennekumbura, Kandy', 'place:kandy'],
    ['Jetwing Beach, Ethukala, Negombo', 'place:negombo'],
    ['98 Acres Resort & Spa, Passara Road, Ella', 'place:ella'],
    ['Heritance Ahungalla, Galle Road, Ahungalla', 'place:ahungalla'],
    ['Amangalla, 10 Church Street, Galle Fort', 'place:galle-fort'],
    ['Thaproban Pavilion, Unawatuna Beach, Galle', 'place:unawatuna'],
    ['Mount Lavinia Hotel, 100 Hotel Road, Mount Lavinia', 'place:mount-lavinia'],
    ['Colombo Court Hotel, Kandy', 'place:kandy'],
    ['Cinnamon Lodge Habarana', 'place:habarana'],
    ['Some Villa, Negombo Road, Wattala', 'place:wattala'],
    ['Hotel X, Hikkaduwa, Galle District', 'place:hikkaduwa'],
    ['Temple of the Tooth, Kandy', 'place:temple-of-tooth'],
  ])('when the address is "%s", then it resolves to %s', (name, placeId) => {
    expect(resolved({ name })).toMatchObject({ place_id: placeId, source: 'name' });
  });

  it('when a street named after a town is the only place in the text, then it is unknown, not that town', () => {
    const f = failure({ name: '77 Galle Road' });
    expect(f.reason).toBe('unknown');
    expect(f.message).toMatch(/street/);
    expect(failure({ name: 'Colombo-Kandy Road, Kadugannawa' }).reason).toBe('unknown');
  });

  it('when a word merely contains a place name, then it does not match (Umbrella Cafe is not Ella)', () => {
    expect(failure({ name: 'Umbrella Cafe' }).reason).toBe('unknown');
  });
});

describe('resolvePlace ambiguous and unknown text', () => {
  it.each(['Kandy to Galle', 'Kandy, Galle', 'Ella or Mirissa', 'Negombo Colombo Jaffna'])(
    'when "%s" names unrelated places, then it is ambiguous and lists them',
    (name) => {
      const f = failure({ name });
      expect(f.reason).toBe('ambiguous');
      expect(f.candidates?.length).toBeGreaterThanOrEqual(2);
      expect(f.message).toMatch(/lat\/lon/);
    },
  );

  it.each(['Paris', 'Hotel California', 'xyzzy', '12345', '!!!', 'කොළඹ'])('when "%s" names no known place, then it is unknown', (name) => {
    expect(failure({ name }).reason).toBe('unknown');
  });

  it('when nothing usable is sent, then it is unknown', () => {
    expect(failure({}).reason).toBe('unknown');
    expect(failure({ name: '   ', iata: '' }).reason).toBe('unknown');
    expect(failure({ lat: 7.29 }).reason).toBe('unknown');
  });
});

describe('resolvePlace by coordinates', () => {
  it('when lat/lon lie in Sri Lanka, then they win over iata and name, and the place is named by us, not by the partner’s text', () => {
    // The partner's own text (often a home address) is the booked place's `name`, personal and erasable; ours is not.
    const p = resolved({ lat: 7.2906, lon: 80.6336, name: 'My guesthouse', iata: 'CMB' });
    expect(p).toMatchObject({ lat: 7.2906, lon: 80.6336, name: '7.29060, 80.63360', source: 'coordinates', place_id: 'geo:7.29060,80.63360', kind: 'point' });
    expect(p.iata).toBeUndefined();
  });

  it('when lat/lon come with the airport name or code near the pin, then the point is an airport', () => {
    expect(resolved({ lat: 7.1745, lon: 79.8866, iata: 'CMB' })).toMatchObject({
      kind: 'airport',
      iata: 'CMB',
      name: 'Bandaranaike International Airport',
      source: 'coordinates',
    });
    expect(resolved({ lat: 7.1745, lon: 79.8866, name: 'BIA arrivals' })).toMatchObject({
      kind: 'airport',
      iata: 'CMB',
      name: 'Bandaranaike International Airport',
    });
  });

  it('when lat/lon come alone, then the place is a named point', () => {
    expect(resolved({ lat: 6.0461, lon: 80.2103 })).toMatchObject({ name: '6.04610, 80.21030', kind: 'point' });
  });

  it.each([
    ['Chennai', 13.0827, 80.2707],
    ['Rameswaram (India, 30 km from Mannar)', 9.2876, 79.3129],
    ['Point Calimere (India)', 10.2783, 79.8517],
    ['open sea east of Batticaloa', 7.7, 82.5],
    ['open sea south of Dondra', 4.5, 80.6],
    ['Gulf of Mannar', 8.5, 79.2],
    ['Maldives', 4.1755, 73.5093],
    ['London', 51.5, -0.12],
  ])('when lat/lon are in %s, then they are outside Sri Lanka', (_label, lat, lon) => {
    const f = failure({ lat, lon, name: 'Colombo' });
    expect(f.reason).toBe('outside_sri_lanka');
  });

  it.each([
    ['Point Pedro', 9.8167, 80.2333],
    ['Dondra Head', 5.9283, 80.5888],
    ['Talaimannar', 9.09, 79.72],
    ['Arugam Bay', 6.84, 81.832],
    ['Kalpitiya', 8.2372, 79.7628],
    ['Delft island', 9.52, 79.68],
  ])('when lat/lon are at %s on the coast, then they are in Sri Lanka', (_label, lat, lon) => {
    expect(resolved({ lat, lon }).source).toBe('coordinates');
  });

  it('when lat/lon are not numbers in range, then they are unknown, not outside', () => {
    expect(failure({ lat: Number.NaN, lon: 80 }).reason).toBe('unknown');
    expect(failure({ lat: 95, lon: 80 }).reason).toBe('unknown');
  });
});

describe('resolvePlace determinism', () => {
  it('when the same input is resolved twice, then the results are equal', () => {
    for (const input of [
      { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
      { iata: 'CMB' },
      { lat: 7, lon: 80.5, name: 'x' },
      { name: 'Kandy to Galle' },
    ]) {
      expect(resolvePlace(input)).toEqual(resolvePlace(input));
    }
  });
});
