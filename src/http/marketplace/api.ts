import { AppError } from '../../shared/errors';
import { sameSecret } from '../../shared/secrets';
import { SIGNATURE_HEADER, verifyMarketplaceSignature } from '../../shared/signing/marketplace-signature';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import type { RequestContext } from '../types';
import { operations } from './operations';
import { withReplayProtection } from './replays';
import { NOT_SUPPORTED, marketplaceError } from './errors';

export { NOT_SUPPORTED, marketplaceError };

/** The mount path of MARKETPLACE_IN_URL, e.g. "/marketplace". */
export const marketplaceMountPath = (inUrl: string) => new URL(inUrl).pathname.replace(/\/$/, '') || '/';

/**
 * The surface the marketplace calls. Supplier calls are signed (PrivateKey over the URL as the marketplace
 * addressed it — MARKETPLACE_IN_URL plus the path and query below it — the raw body bytes and the private key);
 * callbacks carry the shared token. Both are checked before any handler runs; failures are 403. The calls that act
 * on an order act once per distinct call: an identical one is answered from the first (see replays.ts).
 */
export function createMarketplaceSurface(deps: Deps) {
  const { inUrl, privateKey, callbackToken } = deps.config.marketplace;
  const mount = marketplaceMountPath(inUrl);
  const addressedUrl = (ctx: RequestContext) => `${inUrl}${ctx.url.slice(mount === '/' ? 0 : mount.length)}`;
  return createSurface(
    {
      name: 'marketplace',
      contract: 'marketplace-inbound.yaml',
      apiRoot: mount,
      operations: withReplayProtection(operations, addressedUrl),
      async authenticate(ctx, scheme) {
        if (scheme === 'privateKey') {
          if (!privateKey) return false;
          return verifyMarketplaceSignature(addressedUrl(ctx), ctx.rawBody, privateKey, ctx.headers[SIGNATURE_HEADER.toLowerCase()]).ok;
        }
        if (!callbackToken) return false;
        if (scheme === 'callbackTokenHeader') {
          const presented = ctx.headers['x-callback-token'];
          return typeof presented === 'string' && sameSecret(presented, callbackToken);
        }
        if (scheme === 'callbackTokenQuery') {
          const presented = new URL(ctx.url, 'http://x').searchParams.get('token');
          return presented !== null && sameSecret(presented, callbackToken);
        }
        return false;
      },
      unauthorized: () => new AppError('forbidden', 'forbidden'),
      exactTrailingSlashes: true,
      publicRouteMisses: true,
      routeMissMessage: () => NOT_SUPPORTED,
      errorResult: marketplaceError,
    },
    deps,
  );
}
