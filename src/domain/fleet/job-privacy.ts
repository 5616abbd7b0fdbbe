import type { OperatorRole } from '../operators/operators';
import type { JobView } from './job-view';

/**
 * How much of a job's passenger each operator role sees (contracts/ops-v1.yaml, "Passengers, by role"). A
 * dispatcher and an admin see the passenger whole: they call the passenger and brief the driver. A viewer reads the
 * board for an overview, which needs to tell passengers apart, not to reach them: the first name and the initial of
 * the last (`Ayesha P.`), the phone with all but its last 3 digits masked, and the same masks wherever the job's
 * free texts (the meeting instructions we wrote, the partner's notes) repeat them.
 */
export function jobForRole(view: JobView, role: OperatorRole): JobView {
  if (role === 'dispatcher' || role === 'admin') return view;
  const name = view.passenger.name;
  return {
    ...view,
    passenger: { name: shortName(name), phone: view.passenger.phone === null ? null : maskedPhone(view.passenger.phone) },
    meeting_instructions: view.meeting_instructions === null ? null : maskedText(view.meeting_instructions, name),
    notes: view.notes === null ? null : maskedText(view.notes, name),
  };
}

const MASK = '•';

/** `Ayesha Perera` → `Ayesha P.`; a single name stays as it is. */
export function shortName(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length < 2) return words[0] ?? '';
  return `${words[0]} ${initial(words[words.length - 1])}`;
}

const initial = (word: string) => `${[...word][0]}.`;

/** Every digit but the last 3 masked, separators kept: `+94 77 123 4567` → `+•• •• ••• •567`. */
export function maskedPhone(phone: string): string {
  return phone.replace(/\d(?=(?:\D*\d){3})/g, MASK);
}

/** A run of 6 digits or more (spaces, dots, dashes, brackets between them): what may be a phone number. */
const PHONE_LIKE = /\+?\d(?:[\s().-]*\d){5,}/g;

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A free text with the passenger's names but the first cut to their initial, and phone-like numbers masked. */
export function maskedText(text: string, name: string): string {
  let out = text.replace(PHONE_LIKE, maskedPhone);
  const others = name.trim().split(/\s+/).slice(1);
  for (const word of new Set(others)) {
    if ([...word].length < 2) continue;
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped(word)}(?![\\p{L}\\p{N}])`, 'giu'), initial(word));
  }
  return out;
}
