import type { Operation as ContractOperation } from 'openapi-backend';
import { AppError } from '../../shared/errors';
import { authClient, checkOperatorToken, operatorFreshAtCommit } from '../../domain/operators/operator-auth';
import { BOOTSTRAP_OPERATOR, mayAct, type OperatorRole } from '../../domain/operators/operators';
import { createSurface, type SurfaceOptions } from '../surface';
import { bearerAuth } from '../bearer-auth';
import type { Deps } from '../../deps';
import { operations } from './operations';
import { opsError } from './errors';

export { opsError };

const ROLES: readonly OperatorRole[] = ['metrics', 'viewer', 'dispatcher', 'admin'];

/**
 * What every operator surface (the operator API, /metrics) checks: the bearer token of a named operator or
 * OPERATOR_TOKEN, wrong tokens counted per client in the database (once per request: one scheme, or the route-miss
 * check), then the role each operation names in the contract (`x-required-role`; none named: admin).
 */
export function operatorAccess(
  deps: Deps,
  bootstrapToken: string,
): Pick<SurfaceOptions, 'authenticate' | 'unauthorized' | 'admit' | 'owedAtCommit' | 'errorResult'> {
  return {
    // A slowed answer is the same 401, only later; a refused client's also says Retry-After.
    ...bearerAuth(
      (ctx) =>
        checkOperatorToken(deps.db, {
          client: authClient(ctx.clientAddress),
          authorization: ctx.headers['authorization'] as string | undefined,
          token: bootstrapToken,
          now: deps.clock.now(),
        }),
      (ctx, operator) => {
        ctx.operator = operator;
      },
      'Send Authorization: Bearer <operator token>.',
    ),
    admit: (ctx, op: ContractOperation) => {
      const declared = (op as { 'x-required-role'?: OperatorRole })['x-required-role'];
      const required = declared && ROLES.includes(declared) ? declared : 'admin';
      const who = ctx.operator!;
      if (mayAct(who.role, required)) return undefined;
      return new AppError('forbidden', `This needs the ${required} role; operator ${who.operatorId} is a ${who.role}.`, {
        required_role: required,
        role: who.role,
      });
    },
    // A named operator's request commits only while the operator is unrevoked.
    owedAtCommit: (ctx) =>
      ctx.operator && ctx.operator.operatorId !== BOOTSTRAP_OPERATOR.operatorId ? operatorFreshAtCommit(ctx.operator.operatorId) : undefined,
    errorResult: opsError,
  };
}

export function createOpsSurface(deps: Deps, operatorToken: string) {
  return createSurface(
    {
      name: 'ops',
      contract: 'ops-v1.yaml',
      apiRoot: '/ops/v1',
      operations: operations,
      ...operatorAccess(deps, operatorToken),
    },
    deps,
  );
}
