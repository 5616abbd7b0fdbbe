import { setTimeout as sleep } from 'node:timers/promises';
import { SIGNATURE_HEADER, verifyMarketplaceSignature } from '../../src/shared/signing/marketplace-signature';
import { validateRequestBody, type MarketplaceOperation, type Order, type RequestOf } from './contract';
import { BRANDS, type MarketplaceSimState, type RecordedCall } from './state';

/**
 * The simulated marketplace's `apiin` API (contracts/marketplace-outbound.yaml) over Fetch Request/Response, with
 * no framework: handlers.ts mounts these routes as msw handlers, app.ts serves them over HTTP. Every call is
 * recorded, then: latency → scenario fault → PrivateKey signature (403) → body against the contract (400) →
 * the operation, which moves the order on and answers as the contract says.
 */
export interface MarketplaceRoute {
  method: 'GET' | 'POST';
  /** Below /apiin/{userId}; `:name` is a path parameter. */
  path: string;
  operation: MarketplaceOperation;
}

export const MARKETPLACE_ROUTES: readonly MarketplaceRoute[] = [
  { method: 'POST', path: '/booking/confirm/', operation: 'confirmOrder' },
  { method: 'POST', path: '/booking/decline/', operation: 'declineOrder' },
  { method: 'POST', path: '/booking/driver/', operation: 'sendDriverInfo' },
  { method: 'POST', path: '/booking/location/', operation: 'sendDriverLocation' },
  { method: 'POST', path: '/booking/change/confirm/', operation: 'confirmChange' },
  { method: 'POST', path: '/booking/noshow/', operation: 'reportNoShow' },
  { method: 'GET', path: '/brandlist/', operation: 'getBrandList' },
  { method: 'GET', path: '/booking/:order_id/', operation: 'getOrder' },
];

export const NOT_SUPPORTED = 'api method is not supported';

const json = (status: number, body: unknown) => Response.json(body, { status });
const error = (status: number, message: string) => json(status, { status: 'ERROR', error: message });
const ok = () => json(200, { status: 'OK' });

/** The route for a request path (below any prefix), with its decoded parameters. */
export function matchRoute(method: string, pathname: string, userId: string): { route: MarketplaceRoute; params: Record<string, string> } | undefined {
  const prefix = `/apiin/${encodeURIComponent(userId)}`;
  if (!pathname.startsWith(`${prefix}/`)) return undefined;
  const rest = pathname.slice(prefix.length).split('/');
  for (const route of MARKETPLACE_ROUTES) {
    if (route.method !== method.toUpperCase()) continue;
    const parts = route.path.split('/');
    if (parts.length !== rest.length) continue;
    const params: Record<string, string> = {};
    const hit = parts.every((p, i) => {
      if (p.startsWith(':')) {
        if (!rest[i]) return false;
        params[p.slice(1)] = decodeURIComponent(rest[i]);
        return true;
      }
      return p === rest[i];
    });
    if (hit) return { route, params };
  }
  return undefined;
}

/** Dispatches any request under /apiin/: the HTTP app's entry point. Unknown paths are 404 (recorded too). */
export async function dispatch(state: MarketplaceSimState, request: Request): Promise<Response> {
  const match = matchRoute(request.method, new URL(request.url).pathname, state.config.userId);
  if (match) return serveOperation(state, match.route, request, match.params);
  const body = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
  const url = new URL(request.url);
  const signature = verdict(state, request, body);
  state.record({
    method: request.method,
    path: `${url.pathname}${url.search}`,
    url: request.url,
    operation: null,
    headers: headersOf(request),
    body,
    signature,
    signature_ok: signature === 'ok',
    status: 404,
  });
  return error(404, NOT_SUPPORTED);
}

/** Serves one matched operation. `request.url` must be the absolute URL the caller addressed (it is signed). */
export async function serveOperation(
  state: MarketplaceSimState,
  route: MarketplaceRoute,
  request: Request,
  params: Record<string, string | readonly string[] | undefined>,
): Promise<Response> {
  const started = Date.now();
  const raw = route.method === 'GET' ? '' : await request.text();
  const url = new URL(request.url);
  const signature = verdict(state, request, raw);
  const call = state.record({
    method: request.method,
    path: `${url.pathname}${url.search}`,
    url: request.url,
    operation: route.operation,
    headers: headersOf(request),
    body: raw,
    json: parseJson(raw).value,
    signature,
    signature_ok: signature === 'ok',
    status: null,
  });
  const answer = (res: Response, fault?: RecordedCall['fault']) => {
    call.status = request.signal.aborted ? null : res.status;
    call.duration_ms = Date.now() - started;
    if (fault) call.fault = fault;
    return res;
  };

  const latency = state.scenario.latency_ms;
  if (latency > 0) await pause(latency, request.signal);
  const fault = state.takeFault();
  if (fault?.kind === 'fail') return answer(error(fault.status, 'simulated failure'), 'fail');
  if (fault?.kind === 'timeout') {
    await pause(fault.hangMs, request.signal);
    return answer(error(504, 'simulated timeout'), 'timeout');
  }
  if (signature !== 'ok') return answer(error(403, 'invalid signature'));

  if (route.method === 'GET') {
    const orderId = typeof params.order_id === 'string' ? params.order_id : undefined;
    return answer(route.operation === 'getBrandList' ? json(200, { status: 'OK', brands: BRANDS }) : getOrder(state, orderId ?? ''));
  }
  const parsed = parseJson(raw);
  if (!parsed.ok) return answer(error(400, 'invalid request: the body is not JSON'));
  const valid = validateRequestBody(route.path, parsed.value);
  if (!valid.ok) return answer(error(400, valid.message));
  return answer(apply(state, route.operation, parsed.value as { order_id: string }));
}

function getOrder(state: MarketplaceSimState, orderId: string): Response {
  const record = state.orders.get(orderId);
  return record ? json(200, { status: 'OK', order: record.order }) : error(404, 'order not found');
}

/**
 * The order lifecycle the contract implies. Repeating an answer we already accepted is OK (our outbox delivers at
 * least once); an answer the order's state does not allow is refused with 400.
 */
function apply(state: MarketplaceSimState, operation: MarketplaceOperation, body: { order_id: string }): Response {
  const record = state.orders.get(body.order_id);
  if (!record) return error(404, 'order not found');
  const is = (...s: Array<Order['state']>) => s.includes(record.order.state);
  const refuse = (what: string) => error(400, `order ${record.order.order_id} is ${record.status}; ${what}`);

  switch (operation) {
    case 'confirmOrder': {
      const b = body as RequestOf<'confirmOrder'>;
      if (is('confirmed') && record.supplier_order_id === b.supplier_order_id) return ok();
      if (!is('new')) return refuse('only a new order can be confirmed');
      record.supplier_order_id = b.supplier_order_id;
      state.transition(record, 'confirmed', 'confirmed', 'confirmed', b);
      return ok();
    }
    case 'declineOrder': {
      const { order_id: _id, ...decline } = body as RequestOf<'declineOrder'>;
      if (is('declined')) return ok();
      if (!is('new')) return refuse('only a new order can be declined');
      record.decline = decline;
      state.transition(record, 'declined', 'declined', 'declined', decline);
      return ok();
    }
    case 'sendDriverInfo': {
      const { order_id: _id, ...driver } = body as RequestOf<'sendDriverInfo'>;
      if (!is('confirmed', 'changed')) return refuse('driver details need a confirmed order');
      record.driver = driver;
      record.history.push({ at: state.clock.now().toISOString(), event: 'driver_info', detail: driver });
      return ok();
    }
    case 'sendDriverLocation': {
      const { order_id: _id, ...at } = body as RequestOf<'sendDriverLocation'>;
      if (!is('confirmed', 'changed')) return refuse('driver locations need a confirmed order');
      record.locations.push(at);
      return ok();
    }
    case 'confirmChange': {
      const b = body as RequestOf<'confirmChange'>;
      if (record.change && (record.status === 'change_confirmed' || record.status === 'change_refused') && record.change.accepted === b.accepted) return ok();
      if (!is('changed')) return refuse('there is no change to answer');
      record.change = { accepted: b.accepted, ...(b.comment ? { comment: b.comment } : {}) };
      // An accepted change makes the order confirmed again; a refused one stays changed for the marketplace to settle.
      if (b.accepted) state.transition(record, 'change_confirmed', 'confirmed', 'change_confirmed', record.change);
      else state.transition(record, 'change_refused', 'changed', 'change_refused', record.change);
      return ok();
    }
    case 'reportNoShow': {
      const b = body as RequestOf<'reportNoShow'>;
      if (is('no_show')) return ok();
      if (!is('confirmed')) return refuse('a no-show needs a confirmed order');
      record.no_show = b.evidence;
      state.transition(record, 'no_show', 'no_show', 'no_show', b.evidence);
      return ok();
    }
    default:
      return error(404, NOT_SUPPORTED);
  }
}

function verdict(state: MarketplaceSimState, request: Request, raw: string): RecordedCall['signature'] {
  const check = verifyMarketplaceSignature(request.url, raw, state.config.privateKey, request.headers.get(SIGNATURE_HEADER) ?? undefined);
  return check.ok ? 'ok' : check.reason;
}

function headersOf(request: Request): Record<string, string> {
  return Object.fromEntries(request.headers);
}

function parseJson(raw: string): { ok: boolean; value?: unknown } {
  if (!raw) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

/** Waits, but stops early when the caller goes away. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    // aborted: the caller gave up; the answer is computed but nobody reads it.
  }
}
