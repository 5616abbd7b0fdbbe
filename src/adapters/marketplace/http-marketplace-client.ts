import { performance } from 'node:perf_hooks';
import type { components, operations } from '../../generated/marketplace-outbound';
import { SIGNATURE_HEADER, marketplaceUrl, signMarketplaceRequest } from '../../shared/signing/marketplace-signature';
import { systemClock, type Clock } from '../../shared/clock';
import { requestId as newRequestId } from '../../shared/ids';
import { redactBody, redactHeaders } from '../../shared/redact';
import type { MarketplaceBrand, OutboundKind, OutboundSender } from '../../domain/outbox/outbox';
import { errorFromResponse, errorFromTransport, MarketplaceError, type MarketplaceExchange } from './errors';

type Ops = operations;
type RequestOf<O extends keyof Ops> = Ops[O] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
type OkOf<O extends keyof Ops> = Ops[O] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

export type ConfirmOrderRequest = RequestOf<'confirmOrder'>;
export type DeclineOrderRequest = RequestOf<'declineOrder'>;
export type DriverInfoRequest = RequestOf<'sendDriverInfo'>;
export type DriverLocationRequest = RequestOf<'sendDriverLocation'>;
export type ChangeConfirmationRequest = RequestOf<'confirmChange'>;
export type NoShowRequest = RequestOf<'reportNoShow'>;
export type OkResponse = OkOf<'confirmOrder'>;
export type BrandListResponse = OkOf<'getBrandList'>;
export type OrderResponse = OkOf<'getOrder'>;
export type MarketplaceOrder = components['schemas']['Order'];

export interface HttpMarketplaceClientOptions {
  /** MARKETPLACE_URL; calls go to `{baseUrl}/apiin/{userId}/…`. */
  baseUrl: string;
  userId: string;
  privateKey: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  clock?: Clock;
}

export interface MarketplaceResult<T> {
  body: T;
  exchange: MarketplaceExchange;
}

export interface CallOptions {
  /** Sent as X-Request-Id and used as the audit row's request id. */
  requestId?: string;
}

const MAX_AUDITED_TEXT = 4096;

/** Where each message the outbox holds is posted: its payload is that call's body, as stored. */
const POSTED_TO = {
  confirm_order: 'booking/confirm/',
  decline_order: 'booking/decline/',
  driver_info: 'booking/driver/',
  driver_location: 'booking/location/',
  change_confirmation: 'booking/change/confirm/',
  no_show: 'booking/noshow/',
} as const satisfies Record<Exclude<OutboundKind, 'brand_list'>, string>;

/**
 * The marketplace's `apiin` API (contracts/marketplace-outbound.yaml). Every request is signed over the exact
 * absolute URL and body bytes sent, bounded by a timeout, and either resolves with the parsed body or throws a
 * MarketplaceError; both carry an audit-ready, redacted `exchange`. No retries here: the outbox owns them.
 */
export class HttpMarketplaceClient implements OutboundSender {
  readonly timeoutMs: number;
  private readonly apiBase: string;
  private readonly privateKey: string;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly clock: Clock;

  constructor(options: HttpMarketplaceClientOptions) {
    HttpMarketplaceClient.validateOptions(options);
    this.apiBase = `${options.baseUrl.replace(/\/+$/, '')}/apiin/${encodeURIComponent(options.userId)}`;
    this.privateKey = options.privateKey;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    // Looked up per call when not injected, so an interceptor installed later (msw) still sees the request.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.clock = options.clock ?? systemClock;
  }

  static validateOptions(o: Partial<HttpMarketplaceClientOptions> | undefined): void {
    const missing = (['baseUrl', 'userId', 'privateKey'] as const).filter((k) => !o?.[k]);
    if (missing.length)
      throw new Error(`HttpMarketplaceClient: missing option(s) ${missing.join(', ')} (MARKETPLACE_URL, MARKETPLACE_USER_ID, MARKETPLACE_PRIVATE_KEY)`);
    if (!/^https?:\/\//.test(o!.baseUrl!) || !URL.canParse(o!.baseUrl!))
      throw new Error(`HttpMarketplaceClient: baseUrl must be an http(s) URL, got ${o!.baseUrl}`);
    if (o!.timeoutMs !== undefined && !(o!.timeoutMs > 0)) throw new Error('HttpMarketplaceClient: timeoutMs must be positive');
  }

  confirmOrder(body: ConfirmOrderRequest, opts?: CallOptions): Promise<MarketplaceResult<OkResponse>> {
    return this.request('POST', POSTED_TO.confirm_order, body, isOk, opts);
  }

  declineOrder(body: DeclineOrderRequest, opts?: CallOptions): Promise<MarketplaceResult<OkResponse>> {
    return this.request('POST', POSTED_TO.decline_order, body, isOk, opts);
  }

  sendDriverInfo(body: DriverInfoRequest, opts?: CallOptions): Promise<MarketplaceResult<OkResponse>> {
    return this.request('POST', POSTED_TO.driver_info, body, isOk, opts);
  }

  sendDriverLocation(body: DriverLocationRequest, opts?: CallOptions): Promise<MarketplaceResult<OkResponse>> {
    return this.request('POST', POSTED_TO.driver_location, body, isOk, opts);
  }

  confirmChange(body: ChangeConfirmationRequest, opts?: CallOptions): Promise<MarketplaceResult<OkResponse>> {
    return this.request('POST', POSTED_TO.change_confirmation, body, isOk, opts);
  }

  reportNoShow(body: NoShowRequest, opts?: CallOptions): Promise<MarketplaceResult<OkResponse>> {
    return this.request('POST', POSTED_TO.no_show, body, isOk, opts);
  }

  getBrandList(opts?: CallOptions): Promise<MarketplaceResult<BrandListResponse>> {
    return this.request('GET', 'brandlist/', undefined, isBrandList, opts);
  }

  /** The authenticated order re-fetch: the marketplace's record of the order, the source of truth after a callback. */
  getOrder(orderId: string, opts?: CallOptions): Promise<MarketplaceResult<OrderResponse>> {
    return this.request('GET', `booking/${encodeURIComponent(orderId)}/`, undefined, isOrderResponse, opts);
  }

  /**
   * Outbox kind → marketplace operation: the one place the domain's message kinds meet the wire. A message's payload
   * is the body notice-bodies.ts made for it when it was enqueued, sent as stored.
   */
  async sendOutbound(
    kind: OutboundKind,
    payload: Record<string, unknown>,
    opts?: CallOptions,
  ): Promise<{ exchange: MarketplaceExchange; brands?: MarketplaceBrand[] }> {
    if (kind === 'brand_list') {
      const r = await this.getBrandList(opts);
      return { exchange: r.exchange, brands: r.body.brands.map((b) => ({ id: b.id, name: b.name })) };
    }
    if (!Object.hasOwn(POSTED_TO, kind)) throw new Error(`no marketplace operation for outbound kind ${String(kind)}`);
    return this.request('POST', POSTED_TO[kind], payload, isOk, opts);
  }

  private async request<T>(
    method: 'GET' | 'POST',
    pathAndQuery: string,
    body: unknown,
    accept: (b: unknown) => b is T,
    opts: CallOptions = {},
  ): Promise<MarketplaceResult<T>> {
    // Signed and sent as the same normalised string, so the marketplace sees exactly the URL we signed.
    const url = new URL(marketplaceUrl(this.apiBase, pathAndQuery)).href;
    const raw = body === undefined ? '' : JSON.stringify(body);
    const requestId = opts.requestId ?? newRequestId();
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'X-Request-Id': requestId,
      [SIGNATURE_HEADER]: signMarketplaceRequest(url, raw, this.privateKey),
    };
    if (method === 'POST') headers['Content-Type'] = 'application/json';
    const draft = { requestId, startedAt: this.clock.now().toISOString(), method, url, headers, body };
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    let res: Response | undefined;
    let text: string;
    try {
      // Redirects are not followed: the signature covers this URL only.
      res = await this.fetchImpl(url, { method, headers, body: method === 'POST' ? raw : undefined, signal: controller.signal, redirect: 'manual' });
      text = await res.text();
    } catch (err) {
      const exchange = toExchange(draft, res, undefined, performance.now() - started);
      throw withError(errorFromTransport(exchange, err, controller.signal.aborted));
    } finally {
      clearTimeout(timer);
    }
    const parsed = parseJson(text);
    const exchange = toExchange(draft, res, parsed.ok ? parsed.value : truncate(text), performance.now() - started);
    if (res.ok && parsed.ok && accept(parsed.value)) return { body: parsed.value, exchange };
    throw withError(errorFromResponse(exchange, parsed.ok ? parsed.value : undefined));
  }
}

interface Draft {
  requestId: string;
  startedAt: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

function toExchange(d: Draft, res: Response | undefined, responseBody: unknown, durationMs: number): MarketplaceExchange {
  const u = new URL(d.url);
  return {
    requestId: d.requestId,
    startedAt: d.startedAt,
    method: d.method,
    url: d.url,
    path: `${u.pathname}${u.search}`,
    requestHeaders: redactHeaders(d.headers),
    requestBody: d.body === undefined ? null : redactBody(d.body),
    status: res?.status ?? null,
    responseHeaders: res ? redactHeaders(Object.fromEntries(res.headers)) : {},
    responseBody: responseBody === undefined ? null : redactBody(responseBody),
    durationMs: Math.round(durationMs),
    error: null,
  };
}

function withError(e: MarketplaceError): MarketplaceError {
  e.exchange.error = e.message;
  return e;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (!text) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const truncate = (text: string) => (text.length > MAX_AUDITED_TEXT ? `${text.slice(0, MAX_AUDITED_TEXT)}…[truncated]` : text);

// Response checks: what the contract requires of each answer, so callers can rely on the types.
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => Number.isInteger(v);
const LOCAL_DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
/** As contracts/marketplace-outbound.yaml bounds Money: at most 999999999.99, so the amount in cents stays exact. */
const MONEY = /^\d{1,9}\.\d{2}$/;
const ORDER_STATES = new Set(['new', 'confirmed', 'declined', 'changed', 'cancelled', 'completed', 'no_show']);

function isOk(b: unknown): b is OkResponse {
  return isObject(b) && b.status === 'OK';
}

function isBrandList(b: unknown): b is BrandListResponse {
  if (!isObject(b) || b.status !== 'OK') return false;
  const brands: unknown = b.brands;
  return Array.isArray(brands) && brands.every((x: unknown) => isObject(x) && isInt(x.id) && typeof x.name === 'string');
}

function isOrderResponse(b: unknown): b is OrderResponse {
  if (!isObject(b) || b.status !== 'OK') return false;
  const o = b.order;
  return (
    isObject(o) &&
    typeof o.order_id === 'string' &&
    typeof o.state === 'string' &&
    ORDER_STATES.has(o.state) &&
    typeof o.vehicle_id === 'string' &&
    typeof o.date === 'string' &&
    LOCAL_DATETIME.test(o.date) &&
    isObject(o.from) &&
    isObject(o.to) &&
    isInt(o.adults) &&
    o.adults >= 1 &&
    typeof o.price === 'string' &&
    MONEY.test(o.price) &&
    o.currency === 'EUR' &&
    isObject(o.customer) &&
    typeof o.customer.name === 'string'
  );
}

export { MarketplaceError };
