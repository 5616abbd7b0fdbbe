import { lookupName, type PlaceEntry } from '../../domain/geo/place-index';
import { formatLocal } from '../../domain/kernel/sri-lanka-time';
import { errorOf } from './session';
import { bookingSubject, hints, M, ok, T, type Tool } from './tool';
import { bookingText, quoteText, say } from './words';

/** The tools that read: places, quotes (which book nothing), bookings. */

function candidate(e: PlaceEntry) {
  return {
    place_id: e.place_id,
    name: e.name,
    kind: e.kind,
    lat: e.lat,
    lon: e.lon,
    ...(e.iata ? { iata: e.iata } : {}),
    ...(e.district ? { district: e.district } : {}),
    as_place: e.iata ? { iata: e.iata } : { name: e.name, lat: e.lat, lon: e.lon },
  };
}

export const findPlace: Tool = {
  name: 'find_place',
  description:
    'Find a place in Sri Lanka by name: an airport (name or IATA code such as CMB), a town, beach, sight or a hotel address. Returns the place, or the candidates when the name is ambiguous, each with `as_place`: exactly what to send as `pickup` or `dropoff` to quote_transfer. Use it when you are unsure how a place is written; quote_transfer also accepts a name directly.',
  inputSchema: M('FindPlaceInput'),
  output: M('PlaceCandidates'),
  annotations: hints('Find a place', { readOnlyHint: true, idempotentHint: true }),
  acts: false,
  run: async (args) => {
    const query = say(args.query);
    const found = lookupName(query);
    const places = found.ok ? [candidate(found.entry)] : found.candidates.slice(0, 10).map(candidate);
    const ambiguous = !found.ok && found.reason === 'ambiguous';
    const text = places.length
      ? `${ambiguous ? 'Several places match; ask which one is meant:' : 'Found:'}\n${places.map((p) => `- ${p.name} (${p.kind}${p.district ? `, ${p.district}` : ''}) as_place ${JSON.stringify(p.as_place)}`).join('\n')}`
      : `No place in Sri Lanka matches "${query}". Try another spelling, the nearest town, or coordinates (lat/lon).`;
    return ok({ query, places, ...(ambiguous ? { ambiguous } : {}) }, text);
  },
};

export const quoteTransfer: Tool = {
  name: 'quote_transfer',
  description:
    'Quote a private transfer in Sri Lanka. Returns one offer per vehicle that fits the party, cheapest first, each with its price (the price billed), vehicle, capacity and cancellation policy, valid 30 minutes. pickup_datetime is local time with its offset, e.g. 2026-12-01T09:30:00+05:30, at least 24 hours ahead. When the journey cannot be served, the result is a decline with a reason and a hint saying what would work (an earlier time, coordinates for an unknown place, a smaller party): adjust and quote again. Quoting books nothing.',
  inputSchema: T('QuoteRequest'),
  output: T('QuoteResponse'),
  annotations: hints('Quote a transfer', { readOnlyHint: true }),
  acts: false,
  run: async (args, s) => {
    const a = await s.run('createQuote', { body: args });
    if (a.status >= 400) return errorOf(a);
    s.subject = `quote:${say(a.body.quote_id)}`;
    return ok(a.body, quoteText(a.body));
  },
};

export const getBooking: Tool = {
  name: 'get_booking',
  description: 'Read one of your bookings by its booking_ref: its status, driver once assigned, pickup, price and cancellation policy.',
  inputSchema: M('BookingRefInput'),
  output: T('Booking'),
  annotations: hints('Read a booking', { readOnlyHint: true, idempotentHint: true }),
  acts: false,
  run: async (args, s) => {
    const a = await s.run('getBooking', { path: { booking_ref: say(args.booking_ref) } });
    if (a.status >= 400) return errorOf(a);
    s.subject = bookingSubject(a.body.booking_ref);
    return ok(a.body, bookingText(a.body));
  },
};

export const listBookings: Tool = {
  name: 'list_bookings',
  description:
    'List your bookings by pickup date (Sri Lanka): from and to are dates (YYYY-MM-DD), today and 30 days on by default, at most 92 days apart; status filters them. Each line has the booking_ref, your reference, the pickup time, the status and the price.',
  inputSchema: M('ListBookingsInput'),
  output: M('BookingList'),
  annotations: hints('List bookings', { readOnlyHint: true, idempotentHint: true }),
  acts: false,
  run: async (args, s) => {
    const from = (args.from as string | undefined) ?? formatLocal(s.now).slice(0, 10);
    const to = (args.to as string | undefined) ?? formatLocal(new Date(Date.parse(`${from}T00:00:00Z`) + 30 * 86_400_000)).slice(0, 10);
    const a = await s.run('getStatement', { query: { from, to }, header: { accept: 'application/json' } });
    if (a.status >= 400) return errorOf(a);
    const lines = (a.body.lines as Array<Record<string, unknown>>).filter((l) => args.status === undefined || l.status === args.status);
    const text = lines.length
      ? lines
          .map(
            (l) => `- ${say(l.booking_ref)} ${say(l.pickup_datetime)} ${say(l.status)} ${say(l.price)} ${say(a.body.currency)} (${say(l.partner_reference)})`,
          )
          .join('\n')
      : `No bookings with a pickup from ${from} to ${to}${args.status ? ` with status ${say(args.status)}` : ''}.`;
    return ok({ env: s.env, from, to, currency: a.body.currency, bookings: lines }, text);
  },
};
