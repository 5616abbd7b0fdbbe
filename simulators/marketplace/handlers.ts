import { http, HttpResponse, type HttpHandler } from 'msw';
import { MARKETPLACE_ROUTES, NOT_SUPPORTED, serveOperation } from './routes';
import type { MarketplaceSimState } from './state';

/**
 * The simulated marketplace as msw handlers, for tests that intercept MARKETPLACE_URL in-process:
 *
 *   const sim = new MarketplaceSimState({ userId: '1001', privateKey });
 *   setupServer(...marketplaceHandlers(sim, 'http://marketplace.test'));
 *
 * Same routes and state as the HTTP simulator (app.ts); the signature is checked over `request.url`, the URL the
 * client addressed. Any other path under /apiin/ answers 404 like the real thing.
 */
export function marketplaceHandlers(state: MarketplaceSimState, baseUrl: string): HttpHandler[] {
  const root = `${baseUrl.replace(/\/+$/, '')}/apiin/${encodeURIComponent(state.config.userId)}`;
  const routes = MARKETPLACE_ROUTES.map((route) => {
    const on = route.method === 'GET' ? http.get : http.post;
    return on(`${root}${route.path}`, ({ request, params }) => serveOperation(state, route, request, params));
  });
  return [...routes, http.all(`${root}/*`, () => HttpResponse.json({ status: 'ERROR', error: NOT_SUPPORTED }, { status: 404 }))];
}
