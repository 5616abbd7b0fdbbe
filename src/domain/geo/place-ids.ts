export const airportPlaceId = (code: string): string => `airport:${code}`;

export const gazetteerPlaceId = (row: { id: string; iata?: string }): string => (row.iata ? airportPlaceId(row.iata) : `place:${row.id}`);

export const coordinatePlaceId = (lat: number, lon: number): string => `geo:${lat.toFixed(5)},${lon.toFixed(5)}`;
