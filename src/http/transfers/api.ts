import { AppError } from '../../shared/errors';
import { authenticateKey, presentedKey } from '../../domain/partners/api-keys';
import { createSurface, type Operation } from '../surface';
import type { Deps } from '../../deps';
import { transfersError } from './envelope';
import { operations } from './operations';

export { transfersError };

const UNAUTHORIZED_MESSAGE = 'A valid API key is required: send Authorization: Bearer <key> or X-Api-Key: <key>.';

export function createTransfersSurface(deps: Deps) {
  const checked = new WeakMap<object, Promise<boolean>>();
  return createSurface(
    {
      name: 'transfers',
      contract: 'transfers-v1.yaml',
      apiRoot: '/transfers/v1',
      operations: operations as unknown as Record<string, Operation>,
      // Both schemes (Bearer, X-Api-Key) ask; one lookup answers them.
      authenticate: (ctx) => {
        let done = checked.get(ctx);
        if (!done) {
          done = (async () => {
            const who = await authenticateKey(ctx.sql, presentedKey(ctx.headers), deps.clock.now());
            if (!who) return false;
            ctx.partner = { partnerId: who.partnerId, name: who.name, currency: who.currency, paused: who.paused, keyId: who.keyId, vocabulary: who.vocabulary };
            ctx.env = who.env;
            if (who.touch) ctx.owed.push(who.touch);
            return true;
          })();
          checked.set(ctx, done);
        }
        return done;
      },
      // The same bytes for every cause: no env, no request id, no hint of which check failed.
      unauthorized: () => new AppError('unauthorized', 401, UNAUTHORIZED_MESSAGE),
      errorResult: transfersError,
      commonHeaders: (ctx) => ({ 'X-Service-Env': ctx?.env ?? 'none' }),
      decorate: (ctx, body) => (body && typeof body === 'object' && !Array.isArray(body) ? { env: ctx.env ?? null, ...body } : body),
    },
    deps,
  );
}
