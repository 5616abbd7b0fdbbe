import type { operations as Ops } from '../../generated/ops-console';
import { notFound } from '../../shared/errors';
import type { OperationCall, RequestContext } from '../types';
import type { ReplyOf } from '../contract-types';
import { ASSET_CACHE_SECONDS, assetTable, PAGE_CSP, pageAsset, serveAsset, type Asset } from '../documents';

type Handler<O extends keyof Ops> = (call: OperationCall<unknown, Record<string, string>>, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;

/** The console's files under the names its page uses; the base styles are the reference console's. */
const ASSET_FILES: Record<string, string> = {
  'ops.js': 'web/ops/ops.js',
  'api.js': 'web/ops/api.js',
  'audit.js': 'web/ops/audit.js',
  'board.js': 'web/ops/board.js',
  'board-timeline.js': 'web/ops/board-timeline.js',
  'board-words.js': 'web/ops/board-words.js',
  'deliveries.js': 'web/ops/deliveries.js',
  'driver-hours.js': 'web/ops/driver-hours.js',
  'drivers.js': 'web/ops/drivers.js',
  'dom.js': 'web/ops/dom.js',
  'format.js': 'web/ops/format.js',
  'job-panel.js': 'web/ops/job-panel.js',
  'operators.js': 'web/ops/operators.js',
  'partner-agents.js': 'web/ops/partner-agents.js',
  'partner-settings.js': 'web/ops/partner-settings.js',
  'partner-terms.js': 'web/ops/partner-terms.js',
  'partners.js': 'web/ops/partners.js',
  'plan-api.js': 'web/ops/plan-api.js',
  'plan-card.js': 'web/ops/plan-card.js',
  'plan-ghosts.js': 'web/ops/plan-ghosts.js',
  'plan-state.js': 'web/ops/plan-state.js',
  'router.js': 'web/ops/router.js',
  'session.js': 'web/ops/session.js',
  'state.js': 'web/ops/state.js',
  'ops-base.css': 'web/ops/ops-base.css',
  'ops-tables.css': 'web/ops/ops-tables.css',
  'ops-board.css': 'web/ops/ops-board.css',
  'ops-plan.css': 'web/ops/ops-plan.css',
  'ops-drivers.css': 'web/ops/ops-drivers.css',
  'ops-narrow.css': 'web/ops/ops-narrow.css',
  'console-base.css': 'web/console/console-base.css',
  'console-docs.css': 'web/console/console-docs.css',
  'console-workbench.css': 'web/console/console-workbench.css',
  'console-workbench-detail.css': 'web/console/console-workbench-detail.css',
  'favicon-32x32.png': 'swagger-ui-dist/favicon-32x32.png',
};

/** `root`: the path the service is reached under on this listener ('' on OPS_LISTEN, else PUBLIC_BASE_URL's path). */
export function opsConsoleOperations(root: string) {
  const assetFor = assetTable(ASSET_FILES);
  let page: Asset | undefined;

  const getOpsConsole: Handler<'getOpsConsole'> = async (_call, ctx) => {
    page ??= pageAsset('web/ops/ops.html', root);
    // No referrer leaves the page (the console's addresses may name partners, jobs, requests).
    return serveAsset(page, ctx.headers['accept-encoding'], { headers: { 'Content-Security-Policy': PAGE_CSP, 'Referrer-Policy': 'no-referrer' } });
  };

  const getOpsConsoleAsset: Handler<'getOpsConsoleAsset'> = async (call, ctx) => {
    const a = assetFor(call.params.asset);
    if (!a) throw notFound(`No console asset ${call.params.asset}.`, {});
    return serveAsset(a, ctx.headers['accept-encoding'], { cacheSeconds: ASSET_CACHE_SECONDS });
  };

  return { getOpsConsole, getOpsConsoleAsset };
}
