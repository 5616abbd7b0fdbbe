import type { operations as Ops } from '../../generated/driver-app';
import { notFound } from '../../shared/errors';
import type { OperationCall, RequestContext } from '../types';
import type { ReplyOf } from '../contract-types';
import { ASSET_CACHE_SECONDS, assetTable, PAGE_CSP, pageAsset, serveAsset, type Asset } from '../documents';

type Handler<O extends keyof Ops> = (call: OperationCall<unknown, Record<string, string>>, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;

/** The app's files under the names its page uses. */
const ASSET_FILES: Record<string, string> = {
  'driver.js': 'web/driver/driver.js',
  'api.js': 'web/driver/api.js',
  'card.js': 'web/driver/card.js',
  'dom.js': 'web/driver/dom.js',
  'format.js': 'web/driver/format.js',
  'jobs.js': 'web/driver/jobs.js',
  'location.js': 'web/driver/location.js',
  'queue.js': 'web/driver/queue.js',
  'session.js': 'web/driver/session.js',
  'state.js': 'web/driver/state.js',
  'driver.css': 'web/driver/driver.css',
  'cards.css': 'web/driver/cards.css',
  'favicon-32x32.png': 'swagger-ui-dist/favicon-32x32.png',
};

/** `root`: the path the service is reached under (PUBLIC_BASE_URL's path, '' at the host's root). */
export function driverAppOperations(root: string) {
  const assetFor = assetTable(ASSET_FILES);
  let page: Asset | undefined;

  const getDriverApp: Handler<'getDriverApp'> = async (_call, ctx) => {
    page ??= pageAsset('web/driver/driver.html', root);
    // No referrer leaves the page (a tel: link or anything else must not carry the app's address).
    return serveAsset(page, ctx.headers['accept-encoding'], { headers: { 'Content-Security-Policy': PAGE_CSP, 'Referrer-Policy': 'no-referrer' } });
  };

  const getDriverAppAsset: Handler<'getDriverAppAsset'> = async (call, ctx) => {
    const a = assetFor(call.params.asset);
    if (!a) throw notFound(`No driver app asset ${call.params.asset}.`, {});
    return serveAsset(a, ctx.headers['accept-encoding'], { cacheSeconds: ASSET_CACHE_SECONDS });
  };

  return { getDriverApp, getDriverAppAsset };
}
