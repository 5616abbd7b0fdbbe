import { randomBytes } from 'node:crypto';
import { agentAccess } from '../../domain/agents/policy';
import { agentPolicy, cancellationToken, claimCancellation, confirmBooking, prepareBooking, type Booked } from '../../domain/agents/agent-bookings';
import { bookingView } from '../../domain/bookings/booking-view';
import type { BookingInput } from '../../domain/bookings/booking-decision';
import { lookupName, type PlaceEntry } from '../../domain/geo/place-index';
import { formatLocal } from '../../domain/kernel/sri-lanka-time';
import { transfersError } from '../transfers/errors';
import { errorOf, type Answer, type ToolAnswer, type ToolSession } from './session';
import { extended, optional, schemaOf, type JsonSchema } from './tool-schemas';
import { bookingText, cancellationWords, localWords, previewText, quoteText, say } from './words';

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** The success's schema; tools/list serves it with the error's as alternatives (see outputSchemaOf). */
  output: JsonSchema;
  annotations: ToolAnnotations;
  /** Whether the tool changes a booking or spends money (refused when the operator turned agents off). */
  acts: boolean;
  run(args: Record<string, unknown>, s: ToolSession): Promise<ToolAnswer>;
}

const T = (name: string) => schemaOf('transfers-v1.yaml', name);
const M = (name: string) => schemaOf('mcp.yaml', name);
const hints = (title: string, h: Partial<ToolAnnotations>): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
  ...h,
});

/** A tool's outputSchema: its result, or the error every tool may answer (both objects). */
export const outputSchemaOf = (t: Tool): JsonSchema => ({ type: 'object', anyOf: [t.output, M('ToolError')] });

const ok = (structured: Record<string, unknown>, text: string): ToolAnswer => ({ structured, text });
const refusal = (r: { code: string; message: string; details: Record<string, unknown> }): ToolAnswer => ({ error: r });
const bookingSubject = (ref: unknown) => `booking:${say(ref)}`;

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

const bookingRequest = T('BookingRequest');

export const TOOLS: Tool[] = [
  {
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
  },
  {
    name: 'quote_transfer',
    description:
      'Quote a private transfer in Sri Lanka. Returns one offer per vehicle that fits the party, cheapest first, each with its price (the price billed), vehicle, capacity and cancellation policy, valid 30 minutes. pickup_datetime is local time with its offset, e.g. 2026-12-01T09:30:00+05:30, at least 24 hours ahead. When the journey cannot be served, the result is a decline with a reason and a hint saying what would work (an earlier time, coordinates for an unknown place, a smaller party): adjust and quote again. Quoting books nothing.',
    inputSchema: optional(T('QuoteRequest'), []),
    output: T('QuoteResponse'),
    annotations: hints('Quote a transfer', { readOnlyHint: true }),
    acts: false,
    run: async (args, s) => {
      const a = await s.run('createQuote', { body: args });
      if (a.status >= 400) return errorOf(a);
      s.subject = `quote:${say(a.body.quote_id)}`;
      return ok(a.body, quoteText(a.body));
    },
  },
  {
    name: 'prepare_booking',
    description:
      'Prepare a booking of one offer from quote_transfer. It books nothing: it checks the booking would succeed and returns a summary for the traveller (who, from where to where, when in Sri Lanka time, the vehicle, the price, what cancelling costs until when) and a confirmation_token valid 10 minutes. Show the summary to the human and get their agreement, then call confirm_booking with the token. flight_number is required for a pickup at an airport.',
    inputSchema: optional(bookingRequest, ['partner_reference']),
    output: M('PreparedBooking'),
    annotations: hints('Prepare a booking (books nothing)', {}),
    acts: true,
    run: async (args, s) => {
      const input = {
        ...args,
        partner_reference: (args.partner_reference as string | undefined) ?? `agent-${randomBytes(5).toString('hex')}`,
      } as unknown as BookingInput;
      const plan = await prepareBooking(s.ctx.sql, s.scope, input, {
        now: s.now,
        paused: s.partner.paused,
        emergencyPhone: s.ctx.deps.config.emergencyPhone,
        publicBaseUrl: s.ctx.deps.config.publicBaseUrl,
      });
      s.subject = `quote:${input.quote_id}`;
      const o = plan.outcome;
      if (o.kind === 'limited') return refusal(o.refusal);
      if (o.kind === 'refused') return errorOf(asAnswer(s, o.error));
      if (o.kind === 'existing')
        return refusal({
          code: 'booking_conflict',
          message: `partner_reference ${input.partner_reference} already belongs to booking ${o.booking.bookingRef}: read it with get_booking, or prepare with another partner_reference.`,
          details: { reason: 'partner_reference_used', booking_ref: o.booking.bookingRef },
        });
      s.plan(plan);
      const view = bookingView(o.booking);
      const summary = {
        passenger: view.passenger,
        passengers: view.passengers,
        pickup: placeWords(view.pickup),
        dropoff: placeWords(view.dropoff),
        pickup_datetime: view.pickup_datetime,
        pickup_local: localWords(o.booking.pickupAt),
        vehicle: view.vehicle,
        price: view.price,
        currency: view.currency,
        ...(view.flight_number ? { flight_number: view.flight_number } : {}),
        partner_reference: view.partner_reference,
        cancellation_policy: view.cancellation_policy,
        cancellation: cancellationWords(view.cancellation_policy, view.currency),
      };
      const structured = { env: s.env, confirmation_token: o.token, expires_at: o.expiresAt.toISOString(), summary };
      return ok(
        structured,
        `${bookingText(summary)}\nTo book it, call confirm_booking with this confirmation_token before ${formatLocal(o.expiresAt).slice(11, 16)} Sri Lanka time.`,
      );
    },
  },
  {
    name: 'confirm_booking',
    description:
      'Book what prepare_booking prepared, once the human agreed: pass its confirmation_token and an idempotency_key of your choosing (any unique string). A token works once, for 10 minutes, and only with the key that prepared it. Calling again with the same idempotency_key returns the same booking, so retry with the same key after a timeout. Operator limits (production access, amount per booking, amount per day) may refuse it with limit_exceeded: nothing is booked then.',
    inputSchema: M('ConfirmBookingInput'),
    output: T('Booking'),
    annotations: hints('Confirm a booking', { idempotentHint: true }),
    acts: true,
    run: async (args, s) => {
      const tx = await s.ctx.tx();
      const book = async (request: BookingInput, key: string): Promise<Booked<Answer>> => {
        const a = await s.carry(await s.invoke('createBooking', { header: { 'idempotency-key': key }, body: request }), true);
        if (a.status === 201) return { kind: 'created', bookingRef: say(a.body.booking_ref), amount: Number(a.body.price), result: a };
        if (a.status === 200) return { kind: 'answered', bookingRef: say(a.body.booking_ref), result: a };
        return { kind: 'failed', result: a };
      };
      const o = await confirmBooking(tx, s.scope, { token: say(args.confirmation_token), idempotencyKey: say(args.idempotency_key), now: s.now }, book);
      if (o.kind === 'refused') {
        await s.abandon();
        return refusal(o.refusal);
      }
      if (o.kind === 'failed') {
        await s.abandon();
        return errorOf(o.result);
      }
      const a = o.kind === 'again' ? await s.run('getBooking', { path: { booking_ref: o.bookingRef } }) : o.booked.result;
      if (a.status >= 400) return errorOf(a);
      s.subject = bookingSubject(a.body.booking_ref);
      return ok(a.body, `Booked: ${say(a.body.booking_ref)} (${say(a.body.status)}).\n${bookingText(a.body)}`);
    },
  },
  {
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
  },
  {
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
  },
  {
    name: 'preview_cancellation',
    description:
      'What cancelling a booking would cost now, without cancelling it. When it can be cancelled, returns a confirmation_token (10 minutes, once) for cancel_booking: tell the human the fee first.',
    inputSchema: M('BookingRefInput'),
    output: extended(T('CancellationPreview'), M('CancellationConfirmation')),
    annotations: hints('Preview a cancellation', { readOnlyHint: false, idempotentHint: false }),
    acts: true,
    run: async (args, s) => {
      const ref = say(args.booking_ref);
      const a = await s.run('getCancellation', { path: { booking_ref: ref } });
      if (a.status >= 400) return errorOf(a);
      s.subject = bookingSubject(ref);
      if (!a.body.cancellable) return ok(a.body, previewText(a.body));
      const fee = a.body.fee === null || a.body.fee === undefined ? null : Number(a.body.fee);
      const t = cancellationToken(s.scope, ref, { amount: fee, currency: say(a.body.currency) }, s.now);
      s.plan({ write: t.write });
      return ok({ ...a.body, confirmation_token: t.token, expires_at: t.expiresAt.toISOString() }, previewText(a.body));
    },
  },
  {
    name: 'cancel_booking',
    description:
      'Cancel a booking, with the confirmation_token preview_cancellation gave for it (so the fee was seen first). If the fee has risen since the preview (a fee tier began meanwhile), nothing is cancelled: preview again. Cancelling again returns the same cancelled booking.',
    inputSchema: M('CancelBookingInput'),
    output: T('Booking'),
    annotations: hints('Cancel a booking', { destructiveHint: true, idempotentHint: true }),
    acts: true,
    run: async (args, s) => {
      const ref = say(args.booking_ref);
      const tx = await s.ctx.tx();
      const claim = await claimCancellation(tx, s.scope, { token: say(args.confirmation_token), bookingRef: ref, now: s.now });
      s.subject = bookingSubject(ref);
      if ('refusal' in claim) {
        await s.abandon();
        return refusal(claim.refusal);
      }
      const now = await s.run('getCancellation', { path: { booking_ref: ref } });
      const fee = now.body.fee === null || now.body.fee === undefined ? 0 : Number(now.body.fee);
      if (now.status < 400 && now.body.cancellable && fee > (claim.previewedFee ?? 0)) {
        await s.abandon();
        return refusal({
          code: 'confirmation_invalid',
          message: `Cancelling now costs ${fee} ${say(now.body.currency)}, more than the ${claim.previewedFee ?? 0} previewed: nothing was cancelled. Call preview_cancellation again and show the new fee.`,
          details: { reason: 'fee_changed', fee, previewed_fee: claim.previewedFee },
        });
      }
      const a = await s.run('cancelBooking', { path: { booking_ref: ref } });
      if (a.status >= 400) {
        await s.abandon();
        return errorOf(a);
      }
      return ok(a.body, `Cancelled ${ref}; the fee is ${say(a.body.cancellation_fee ?? 0)} ${say(a.body.currency)}.\n${bookingText(a.body)}`);
    },
  },
  {
    name: 'amend_booking',
    description:
      "Make free changes to a booking: the passenger's name, e-mail or phone, the flight number, notes for the driver (`changes`, as PATCH /bookings/{booking_ref} takes them). Changing the time, places or party needs a new price and is not offered here. If the booking changed meanwhile the result says so: read it and try again.",
    inputSchema: { ...M('AmendBookingInput') },
    output: T('Booking'),
    annotations: hints('Amend a booking', { destructiveHint: true, idempotentHint: true }),
    acts: true,
    run: async (args, s) => {
      const ref = say(args.booking_ref);
      s.subject = bookingSubject(ref);
      const current = await s.run('getBooking', { path: { booking_ref: ref } });
      if (current.status >= 400) return errorOf(current);
      const a = await s.run('amendBooking', { path: { booking_ref: ref }, header: { 'if-match': current.headers.ETag ?? '' }, body: args.changes });
      if (a.status === 412)
        return refusal({
          code: 'precondition_failed',
          message: `Booking ${ref} changed while this change was being made: nothing was changed. Read it with get_booking and try again.`,
          details: (a.body.error as { details?: Record<string, unknown> } | undefined)?.details ?? {},
        });
      if (a.status >= 400) return errorOf(a);
      return ok(a.body, `Changed ${ref} (version ${say(a.body.version)}).\n${bookingText(a.body)}`);
    },
  },
];

const placeWords = (p: { name: string | null; resolved_name: string }) =>
  p.name && p.name !== p.resolved_name ? `${p.name} (located at ${p.resolved_name})` : p.resolved_name;

/** A domain refusal in the Transfers API's words (the same code, message and details as POST /bookings). */
function asAnswer(s: ToolSession, e: Parameters<typeof transfersError>[1]): Answer {
  const r = transfersError({ env: s.env }, e);
  return { status: r.status, body: r.body as unknown as Record<string, unknown>, headers: r.headers, result: r };
}

/** Whether the operator lets this partner's agents act at all (read-only tools stay open). */
export async function accessRefusal(t: Tool, s: ToolSession): Promise<ToolAnswer | undefined> {
  if (!t.acts) return undefined;
  const closed = agentAccess(await agentPolicy(s.ctx.sql, s.partner.partnerId));
  return closed ? refusal(closed) : undefined;
}
