import pino from 'pino';
import { replacePersonal } from './personal-data';
import { holdsSecret, isSecretName, PERSONAL, redactString, redactTrackingLinks, REDACTED } from './redact';

export type Logger = pino.Logger;

/** A log line's text: secrets and passengers' tracking links redacted. */
const scrub = (text: string): string => redactTrackingLinks(holdsSecret(text) ? redactString(text) : text);

/** A traveller's details in a log record (by the map of personal data) read as `[personal]`. */
const impersonal = (value: unknown): unknown => replacePersonal(value, () => PERSONAL);

/**
 * A log record's values with secrets redacted (by shape, by configured value, and by field name), and a traveller's
 * personal data by the map (shared/personal-data), wherever a field of the record carries it.
 */
function clean(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const copy = new Error(scrub(value.message));
    copy.name = value.name;
    copy.stack = value.stack && scrub(value.stack);
    for (const [k, v] of Object.entries(value)) Object.assign(copy, { [k]: isSecretName(k) ? REDACTED : clean(v, depth + 1) });
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretName(k) && typeof v === 'string' ? REDACTED : clean(v, depth + 1);
  return out;
}

/**
 * The service's logger (pino, JSON lines). No secret reaches a log line, wherever it was put: every record's fields
 * and its message pass the same redaction as the audit log (tracking links included) before they are written. No
 * traveller's details either: a record's fields are read through the map of personal data.
 */
export function makeLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'lanka-transfers' },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: {
        logMethod(args, method) {
          const cleaned = args.map((a) => (typeof a === 'string' ? scrub(a) : clean(impersonal(a))));
          return method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
