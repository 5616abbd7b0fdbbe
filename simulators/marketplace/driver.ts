import type { components, operations } from '../../src/generated/marketplace-inbound';
import { SIGNATURE_HEADER, marketplaceUrl, signMarketplaceRequest } from '../../src/shared/signing/marketplace-signature';

/**
 * Acts as the marketplace towards our service (contracts/marketplace-inbound.yaml): signed supplier calls, the
 * unsigned brand list and token-authenticated order callbacks. Used by the simulator's /__sim/drive/* controls,
 * by the Pact consumer tests (against the Pact mock server) and by tests and state handlers directly.
 *
 * Every signed call is signed over `inUrl` + path (the address the marketplace knows the service by,
 * MARKETPLACE_IN_URL) and sent to `baseUrl` + path, which defaults to the same place.
 */
type Ops = operations;
type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type BodyOf<O extends keyof Ops> = Ops[O] extends { requestBody: infer R } ? JsonBody<NonNullable<R>> : never;
type OkOf<O extends keyof Ops> = Ops[O] extends { responses: { 200: infer R } } ? JsonBody<R> : never;

export type SearchRequest = components['schemas']['SearchRequest'];
export type Vehicle = components['schemas']['Vehicle'];
export type SupplierOrder = components['schemas']['Order'];
export type OrderChange = components['schemas']['OrderChange'];
export type OrderAck = components['schemas']['OrderAck'];
export type NoVehicle = components['schemas']['NoVehicle'];
export type SupplierError = components['schemas']['Error'];
export type CancelRequest = BodyOf<'cancelOrder'>;
/** The callback body: `type` and `order_id`, plus whatever else the marketplace chooses to post (ignored by us). */
export type CallbackBody = BodyOf<'receiveCallback'> & Record<string, unknown>;

export type SearchResponse = OkOf<'searchVehicles'>;
export type LockedQuoteResponse = OkOf<'getLockedQuote'>;
export type RequoteResponse = OkOf<'requoteVehicle'>;
export type BrandListResponse = OkOf<'getBrandList'>;
export type UpdateResponse = OkOf<'updateOrder'>;

export interface MarketplaceDriverOptions {
  /** The service's MARKETPLACE_IN_URL: what signatures are computed over. */
  inUrl: string;
  /** Where requests actually go (e.g. the in-process server's URL + mount path). Default: inUrl. */
  baseUrl?: string;
  privateKey: string;
  /** MARKETPLACE_CALLBACK_TOKEN; callbacks need it. */
  callbackToken?: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export interface DriverRequest {
  method: 'GET' | 'POST';
  /** The URL the request was sent to. */
  url: string;
  /** The URL it was signed over (absent when unsigned). */
  signedUrl?: string;
  headers: Record<string, string>;
  body?: string;
}

/** The service's answer, whatever its status: 2xx bodies are the typed `T`, errors the marketplace envelope. */
export interface DriverReply<T> {
  status: number;
  ok: boolean;
  headers: Headers;
  body: T | SupplierError | undefined;
  text: string;
  request: DriverRequest;
}

export type CallbackVia = 'query' | 'header';

export class MarketplaceDriver {
  private readonly inUrl: string;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: MarketplaceDriverOptions) {
    if (!URL.canParse(options.inUrl)) throw new Error(`MarketplaceDriver: inUrl must be an absolute URL, got ${options.inUrl}`);
    if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl))
      throw new Error(`MarketplaceDriver: baseUrl must be an absolute URL, got ${options.baseUrl}`);
    if (!options.privateKey) throw new Error('MarketplaceDriver: privateKey is required');
    this.inUrl = options.inUrl.replace(/\/+$/, '');
    this.baseUrl = (options.baseUrl ?? options.inUrl).replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  search(body: SearchRequest): Promise<DriverReply<SearchResponse>> {
    return this.signed('POST', '/search/', body);
  }

  /** The locked quote behind a price mark (404 once it expired). */
  lock(vehicleId: string, priceMark: string): Promise<DriverReply<LockedQuoteResponse>> {
    return this.signed('GET', `/search/${encodeURIComponent(vehicleId)}/${encodeURIComponent(priceMark)}/`);
  }

  requote(vehicleId: string, body: SearchRequest): Promise<DriverReply<RequoteResponse>> {
    return this.signed('POST', `/search/${encodeURIComponent(vehicleId)}/`, body);
  }

  book(order: SupplierOrder): Promise<DriverReply<OrderAck>> {
    return this.signed('POST', '/booking/', order);
  }

  cancel(body: CancelRequest): Promise<DriverReply<OrderAck>> {
    return this.signed('POST', '/booking/cancel/', body);
  }

  update(change: OrderChange): Promise<DriverReply<UpdateResponse>> {
    return this.signed('POST', '/booking/update/', change);
  }

  /** The marketplace acknowledging our confirmation of an order. */
  confirm(orderId: string): Promise<DriverReply<OrderAck>> {
    return this.signed('POST', '/booking/confirm/', { order_id: orderId });
  }

  /** Not signed: the brand list is the one public supplier endpoint. */
  brandList(): Promise<DriverReply<BrandListResponse>> {
    return this.send({ method: 'GET', url: `${this.baseUrl}/brandlist/`, headers: {} });
  }

  /** An order callback, authenticated by the shared token in `?token=` (default) or `X-Callback-Token`. */
  callback(body: CallbackBody, opts: { via?: CallbackVia } = {}): Promise<DriverReply<OrderAck>> {
    const token = this.options.callbackToken;
    if (!token) throw new Error('MarketplaceDriver: callbackToken is required for callbacks');
    const via = opts.via ?? 'query';
    const path = via === 'query' ? `/callback?token=${encodeURIComponent(token)}` : '/callback';
    const raw = JSON.stringify(body);
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(via === 'header' ? { 'X-Callback-Token': token } : {}) };
    return this.send({ method: 'POST', url: `${this.baseUrl}${path}`, headers, body: raw });
  }

  /** Any signed call: `pathAndQuery` is below the service's marketplace root, e.g. "/search/". */
  signed<T>(method: 'GET' | 'POST', pathAndQuery: string, body?: unknown, opts: { key?: string } = {}): Promise<DriverReply<T>> {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const signedUrl = marketplaceUrl(this.inUrl, pathAndQuery);
    const headers: Record<string, string> = {
      [SIGNATURE_HEADER]: signMarketplaceRequest(signedUrl, raw, opts.key ?? this.options.privateKey),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    };
    return this.send({ method, url: marketplaceUrl(this.baseUrl, pathAndQuery), signedUrl, headers, body: body === undefined ? undefined : raw });
  }

  private async send<T>(request: DriverRequest): Promise<DriverReply<T>> {
    const res = await this.fetchImpl(request.url, {
      method: request.method,
      headers: { Accept: 'application/json', ...request.headers },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    let body: T | SupplierError | undefined;
    try {
      body = text ? (JSON.parse(text) as T | SupplierError) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, ok: res.ok, headers: res.headers, body, text, request };
  }
}
