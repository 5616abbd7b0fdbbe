import { loadContract } from '../../../src/http/surface';
import { ERROR_STATUS } from '../../../src/http/errors';
import { TRANSFERS_ERROR_STATUS } from '../../../src/http/transfers/errors';
import { OPS_ERROR_STATUS } from '../../../src/http/ops/errors';
import { MARKETPLACE_ERROR_STATUS } from '../../../src/http/marketplace/errors';
import { AppError } from '../../../src/shared/errors';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `error.code` enum of a contract's Error schema. */
function errorCodes(file: string): string[] {
  const schemas = loadContract(file).components?.schemas ?? {};
  const error = schemas.Error;
  if (!isObject(error) || !isObject(error.properties)) throw new Error(`${file}: no Error schema`);
  const inner = error.properties.error;
  if (!isObject(inner) || !isObject(inner.properties) || !isObject(inner.properties.code)) throw new Error(`${file}: no error.code`);
  const codes = inner.properties.code.enum;
  if (!Array.isArray(codes)) throw new Error(`${file}: error.code has no enum`);
  return codes.map(String);
}

/** Every status a contract documents as an error answer of some operation (4xx and 5xx). */
function documentedErrorStatuses(file: string): number[] {
  const contract = loadContract(file);
  const statuses = new Set<number>();
  for (const item of Object.values(contract.paths ?? {})) {
    for (const op of Object.values(item ?? {})) {
      if (!isObject(op) || !isObject(op.responses)) continue;
      for (const status of Object.keys(op.responses)) if (/^[45]\d\d$/.test(status)) statuses.add(Number(status));
    }
  }
  return [...statuses].sort();
}

describe('One error table per surface, matching its contract', () => {
  it.each([
    ['transfers-v1.yaml', TRANSFERS_ERROR_STATUS],
    ['ops-v1.yaml', OPS_ERROR_STATUS],
    ['console.yaml', TRANSFERS_ERROR_STATUS],
    ['ops-console.yaml', OPS_ERROR_STATUS],
    ['driver-v1.yaml', ERROR_STATUS],
    ['driver-app.yaml', OPS_ERROR_STATUS],
  ])('when %s lists its error codes, then each has its status in the table, and every documented error status is one of them', (file, table) => {
    const codes = errorCodes(file);
    const known = Object.keys(table);
    expect(codes.filter((c) => !known.includes(c))).toEqual([]);
    const statusOf = (c: string) => table[c as keyof typeof table];
    const answered = new Set<number>(codes.map(statusOf));
    // 431 is Node's own refusal of oversized headers (answered before any surface), documented for completeness.
    expect(documentedErrorStatuses(file).filter((s) => !answered.has(s) && s !== 431)).toEqual([]);
  });

  it('when a code is looked up, then the marketplace differs from the common table only in answering 405 as 404', () => {
    const differing = Object.entries(MARKETPLACE_ERROR_STATUS).filter(([code, status]) => ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== status);
    expect(differing).toEqual([['method_not_allowed', 404]]);
  });

  it('when the domain refuses, then its error carries a code, details and hints, and no status', () => {
    const e = new AppError('booking_conflict', 'Offer o is already booked.', { reason: 'offer_consumed' });
    expect(Object.keys(e).sort()).toEqual(['code', 'details', 'hints', 'name']);
    expect(TRANSFERS_ERROR_STATUS[e.code]).toBe(409);
  });
});
