import { createHash } from 'node:crypto';
import type { Sql } from '../../data/database';
import * as tokens from '../../data/repositories/driver-tokens-repository';
import { findDriver } from '../../data/repositories/fleet-repository';
import { authClient, checkBearer, type BearerVerdict } from '../operators/operator-auth';
import { AppError, notFound } from '../../shared/errors';
import { mayAct, type OperatorRole } from '../operators/operators';
import { keySecret, prefixedId } from '../../shared/ids';

/**
 * Driver tokens: what a driver's phone signs in with. `drv_` and 40 base62 characters (238 bits), shown once when
 * issued and kept as its SHA-256, as operator tokens are. A token reaches only its driver's jobs; revoking it, or
 * taking the driver off the roster, refuses it from the next request on.
 */
export interface DriverTokenView {
  token_id: string;
  driver_id: string;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
}

/** The driver a request's token belongs to. */
export interface AuthenticatedDriver {
  driverId: string;
  name: string;
  tokenId: string;
}

const hash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const toView = (t: tokens.DriverTokenRecord): DriverTokenView => ({
  token_id: t.tokenId,
  driver_id: t.driverId,
  created_at: new Date(t.createdAt).toISOString(),
  created_by: t.createdBy,
  revoked_at: t.revokedAt ? new Date(t.revokedAt).toISOString() : null,
});

/**
 * Issues a token to a driver on the roster; `by` is the operator issuing it. A token acts as the driver (the ride's
 * states, positions, the passenger's phone), so who may mint one is narrow: an admin, or a dispatcher for a driver on
 * the roster; a dispatcher asking for any other driver is refused (`forbidden`) before anything about the driver is
 * decided. A driver off the roster gets no token from anyone (`driver_inactive`): theirs stop working.
 */
export async function issueDriverToken(
  tx: Sql,
  driverId: string,
  by: { operatorId: string; role: OperatorRole },
  now: Date,
): Promise<DriverTokenView & { token: string }> {
  if (!mayAct(by.role, 'dispatcher')) throw mintForbidden(by, 'dispatcher');
  const driver = await findDriver(tx, driverId);
  if (!driver) throw notFound(`No driver ${driverId}.`, { driver_id: driverId });
  if (!driver.active && !mayAct(by.role, 'admin')) throw mintForbidden(by, 'admin', driverId);
  if (!driver.active) throw new AppError('job_conflict', `Driver ${driver.name} is not on the roster.`, { reason: 'driver_inactive', driver_id: driverId });
  const token = `drv_${keySecret()}`;
  const row = await tokens.insertDriverToken(tx, { tokenId: prefixedId('dtk'), driverId, tokenHash: hash(token), createdAt: now, createdBy: by.operatorId });
  return { ...toView(row), token };
}

function mintForbidden(by: { operatorId: string; role: OperatorRole }, required: OperatorRole, driverId?: string): AppError {
  const whom = driverId ? `a token for driver ${driverId}, who is not on the roster` : 'a driver token';
  return new AppError(
    'forbidden',
    `Only an admin${required === 'admin' ? '' : ' or a dispatcher'} may issue ${whom}; operator ${by.operatorId} is a ${by.role}.`,
    {
      required_role: required,
      role: by.role,
      ...(driverId ? { driver_id: driverId, reason: 'driver_inactive' } : {}),
    },
  );
}

export async function revokeDriverToken(tx: Sql, tokenId: string, now: Date): Promise<DriverTokenView> {
  const row = await tokens.revokeDriverToken(tx, tokenId, now);
  if (!row) throw notFound(`No driver token ${tokenId}.`, { token_id: tokenId });
  return toView(row);
}

/** Checks a driver's `Authorization` header, wrong tokens counted per client as operators' are. */
export async function checkDriverToken(
  db: Sql,
  input: { clientAddress: string | undefined; authorization: string | undefined; now: Date },
): Promise<BearerVerdict<AuthenticatedDriver>> {
  return checkBearer(db, { client: authClient(input.clientAddress), authorization: input.authorization, now: input.now }, async (presented) => {
    if (!presented.startsWith('drv_')) return undefined;
    const row = await tokens.findDriverByTokenHash(db, hash(presented));
    return row ? { driverId: row.driverId, name: row.name, tokenId: row.tokenId } : undefined;
  });
}
