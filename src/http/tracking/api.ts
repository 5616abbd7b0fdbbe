import { AppError } from '../../shared/errors';
import { trackRide } from '../../domain/ride/tracking';
import { ERROR_STATUS } from '../errors';
import { createSurface } from '../surface';
import type { Deps } from '../../deps';
import type { HandlerResult, OperationCall, RequestContext } from '../types';
import { renderTrackingGone, renderTrackingPage } from './page';

/** Where tracking links point: `{PUBLIC_BASE_URL}/t/{token}`. */
export const TRACKING_ROOT = '/t';

/** The page's policy: nothing but its own inline style (there is no script at all). */
const TRACKING_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const PAGE_HEADERS = { 'Content-Security-Policy': TRACKING_CSP, 'Referrer-Policy': 'no-referrer', 'X-Robots-Tag': 'noindex' };

const html = (status: number, text: string): HandlerResult => ({
  status,
  document: { contentType: 'text/html; charset=utf-8', bytes: Buffer.from(text) },
  headers: PAGE_HEADERS,
});

/** Every refusal of this surface is a line of plain text: a traveller's browser shows it as it is. */
function trackingError(_ctx: RequestContext | undefined, err: AppError): HandlerResult {
  const text = err.code === 'not_found' ? 'This tracking link does not exist.' : err.message;
  return { status: ERROR_STATUS[err.code], document: { contentType: 'text/plain; charset=utf-8', bytes: Buffer.from(`${text}\n`) } };
}

/**
 * The passenger tracking page (contracts/tracking.yaml): no login, the token in the path is the capability. The
 * page is rendered from the booking as it stands (src/domain/ride/tracking.ts decides what it may show and when).
 */
export function createTrackingSurface(deps: Deps) {
  const getTrackingPage = async (call: OperationCall<unknown, { token: string }>, ctx: RequestContext): Promise<HandlerResult> => {
    const now = deps.clock.now();
    const outcome = await trackRide(ctx.sql, call.params.token, now);
    if (outcome.kind === 'unknown') throw new AppError('not_found', 'This tracking link does not exist.');
    if (outcome.kind === 'gone') return html(410, renderTrackingGone(outcome));
    return html(200, renderTrackingPage({ ...outcome.tracking, now }));
  };
  return createSurface(
    {
      name: 'tracking',
      contract: 'tracking.yaml',
      apiRoot: TRACKING_ROOT,
      operations: { getTrackingPage },
      authenticate: async () => true,
      unauthorized: () => new AppError('unauthorized', 'unauthorized'),
      publicRouteMisses: true,
      errorResult: trackingError,
    },
    deps,
  );
}
