import type { ErrorObject } from 'ajv';
import { printable } from './decode';
import { dateMessage, dateTimeLimitMessage } from './formats';

/** Turns Ajv's errors into `details.fields`: one entry per offending field, named the way the client wrote it. */
export function fieldErrors(errors: ErrorObject[] | null | undefined, input?: unknown): Array<{ field: string; message: string }> {
  const out: Array<{ field: string; message: string }> = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const parts = e.instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => printable(p.replace(/~1/g, '/').replace(/~0/g, '~')));
    let where = parts[0] === 'requestBody' ? parts.slice(1) : parts;
    if (['query', 'path', 'header', 'headers'].includes(where[0] ?? '')) where = where.slice(1);
    let field = where.join('.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      const missing = printable((e.params as { missingProperty: string }).missingProperty);
      field = missing === 'requestBody' ? 'body' : field ? `${field}.${missing}` : missing;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      const extra = printable((e.params as { additionalProperty: string }).additionalProperty);
      field = field ? `${field}.${extra}` : extra;
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`;
    } else if (e.keyword === 'format' && (e.params as { format?: string }).format === 'date-time') {
      message = dateTimeMessage(valueAt(input, e.instancePath));
    } else if (e.keyword === 'format' && (e.params as { format?: string }).format === 'date') {
      message = dateMessage(valueAt(input, e.instancePath));
    }
    if (!field) field = parts[0] === 'requestBody' || parts.length === 0 ? 'body' : parts.join('.');
    const key = `${field}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, message });
    }
  }
  return out;
}

/** The value an Ajv error points at (its instancePath, JSON-pointer escaped). */
function valueAt(input: unknown, pointer: string): unknown {
  let v = input;
  for (const part of pointer.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/** What is wrong with a date-time, in words: most often the UTC offset is missing; or it is beyond what we store. */
function dateTimeMessage(value: unknown): string {
  const example = 'e.g. 2026-12-01T09:30:00+05:30';
  const beyond = dateTimeLimitMessage(value);
  if (beyond) return beyond;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value.trim())) {
    return `is missing its UTC offset: add +05:30 for Sri Lankan time, or Z for UTC (${example})`;
  }
  return `must be an RFC 3339 date-time with a UTC offset (${example})`;
}

export function describeFields(fields: Array<{ field: string; message: string }>): string {
  if (!fields.length) return 'The request is invalid.';
  const first = fields
    .slice(0, 3)
    .map((f) => `${f.field} ${f.message}`)
    .join('; ');
  return `The request is invalid: ${first}${fields.length > 3 ? ` (and ${fields.length - 3} more)` : ''}.`;
}
