import { formatLocal } from '../../domain/kernel/sri-lanka-time';

/**
 * Tool results in plain words, for the model to read and repeat to a human. They say what the structured content
 * holds; the audit row keeps the structured content only (see HandlerResult.auditBody).
 */
type Json = Record<string, unknown>;

/** A JSON value as text: strings as they are, numbers as written, anything else as JSON. */
export const say = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? `${v}` : (JSON.stringify(v) ?? ''));

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Tue 1 Dec 2026, 09:30 (Sri Lanka time)". */
export function localWords(at: Date): string {
  const local = new Date(at.getTime() + 5.5 * 3_600_000);
  return `${DAYS[local.getUTCDay()]} ${local.getUTCDate()} ${MONTHS[local.getUTCMonth()]} ${local.getUTCFullYear()}, ${formatLocal(at).slice(11, 16)} (Sri Lanka time)`;
}

const instant = (iso: unknown) => localWords(new Date(say(iso)));

/** What cancelling costs until when: "Free to cancel until Mon 30 Nov 2026, 21:30 (Sri Lanka time); then 17.65 USD (50 %) …". */
export function cancellationWords(policy: unknown, currency: unknown): string {
  const p = policy as { free_until?: string; fees?: Array<{ from: string; percent: number; fee: number }>; no_show_fee?: number } | null;
  if (!p?.free_until) return 'No cancellation policy is recorded.';
  const tiers = (p.fees ?? []).map((f) => `from ${instant(f.from)} ${f.fee} ${say(currency)} (${f.percent} %)`);
  return `Free to cancel until ${instant(p.free_until)}${tiers.length ? `; then ${tiers.join('; ')}` : ''}. A no-show costs ${say(p.no_show_fee)} ${say(currency)}.`;
}

export function quoteText(q: Json): string {
  const declined = q.declined as { reason: string; message: string; hint?: Json } | null;
  if (declined) {
    return `Declined (${declined.reason}): ${declined.message}${declined.hint ? ` Hint: ${JSON.stringify(declined.hint)}` : ''}`;
  }
  const offers = (q.offers as Json[]).map(
    (o, i) =>
      `${i + 1}. ${say(o.vehicle)}: ${say(o.price)} ${say(o.currency)}, up to ${say(o.max_passengers)} passengers and ${say(o.max_luggage)} bags (offer_id ${say(o.offer_id)}). ${cancellationWords(o.cancellation_policy, o.currency)}`,
  );
  return `Quote ${say(q.quote_id)}, offers valid until ${instant(q.expires_at)}:\n${offers.join('\n')}`;
}

/** A booking or a prepared one, in words: who, from where to where, when, the vehicle, the price and its cancellation. */
/** A booked place as the driver will read it, and where we located it. */
function placeWords(p: unknown): string {
  const place = p as { name?: string | null; resolved_name?: string } | null;
  if (!place?.resolved_name) return '?';
  return place.name && place.name !== place.resolved_name ? `${place.name} (located at ${place.resolved_name})` : place.resolved_name;
}

export function bookingText(b: Json): string {
  const person = b.passenger as { first_name?: string; last_name?: string } | null;
  const party = b.passengers as { adults?: number; children?: number; luggage?: number } | undefined;
  const lines = [
    `Passenger: ${person ? `${person.first_name ?? ''} ${person.last_name ?? ''}`.trim() : '(erased)'}${party ? `, ${party.adults ?? 0} adults, ${party.children ?? 0} children, ${party.luggage ?? 0} bags` : ''}`,
    `From ${placeWords(b.pickup)} to ${placeWords(b.dropoff)}`,
    `Pickup: ${typeof b.pickup_local === 'string' ? b.pickup_local : instant(b.pickup_datetime)}`,
    `Vehicle: ${say(b.vehicle)}`,
    `Price: ${say(b.price)} ${say(b.currency)}`,
    typeof b.cancellation === 'string' ? `Cancellation: ${b.cancellation}` : `Cancellation: ${cancellationWords(b.cancellation_policy, b.currency)}`,
  ];
  if (b.status) lines.unshift(`Booking ${say(b.booking_ref)}: ${say(b.status)}`);
  return lines.join('\n');
}

export function previewText(p: Json): string {
  if (!p.cancellable) return `Booking ${say(p.booking_ref)} cannot be cancelled now.`;
  return `Cancelling ${say(p.booking_ref)} now costs ${say(p.fee ?? 0)} ${say(p.currency)}${p.free_until ? ` (free until ${instant(p.free_until)})` : ''}. Tell the traveller, then call cancel_booking with the confirmation_token.`;
}
