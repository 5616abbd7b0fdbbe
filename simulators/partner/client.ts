import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { components, paths } from '../../src/generated/transfers-v1';

type Schemas = components['schemas'];
export type Ping = Schemas['Ping'];
export type QuoteRequest = Schemas['QuoteRequest'];
export type QuoteResponse = Schemas['QuoteResponse'];
export type Offer = Schemas['Offer'];
export type BookingRequest = Schemas['BookingRequest'];
export type Booking = Schemas['Booking'];
export type ExpiredOffer = Schemas['ExpiredOffer'];
export type SandboxAccount = Schemas['SandboxAccount'];
export type ErrorEnvelope = Schemas['Error'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEvent = Schemas['WebhookEvent'];
export type EventList = Schemas['EventList'];
export type ErrorCode = ErrorEnvelope['error']['code'];
export type AmendmentRequest = Schemas['AmendmentRequest'];
export type ChangeQuoteRequest = Schemas['ChangeQuoteRequest'];
export type ChangeQuote = Schemas['ChangeQuote'];
export type CancellationPreview = Schemas['CancellationPreview'];
export type Statement = Schemas['Statement'];

/** What openapi-fetch calls: globalThis.fetch fits, and so does any wrapper of it. */
export type FetchLike = (input: Request) => Promise<Response>;

export interface PartnerClientOptions {
  /** The service root (http://localhost:3000) or the API root (…/transfers/v1). */
  baseUrl: string;
  apiKey: string;
  fetch?: FetchLike;
  /** Per-request timeout; a timed-out request counts as a network error. Default 30 s. */
  timeoutMs?: number;
}

/** One HTTP exchange as the partner saw it. `data` is set on 2xx, `error` on an error envelope. */
export interface ApiResult<T> {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  requestId: string | null;
  body: T | ErrorEnvelope | undefined;
  data?: T;
  error?: ErrorEnvelope['error'];
}

export interface BookingOptions {
  idempotencyKey?: string;
}

/** A change of a booking: the ETag read last (If-Match, required by the service) and an Idempotency-Key. */
export interface ChangeOptions extends BookingOptions {
  ifMatch?: string;
}

/** A sandbox fault the service can simulate on any request (the Sandbox-Simulate header). */
export type SimulatedFault = 'service_unavailable' | 'rate_limited' | 'idempotency_in_progress' | 'slow';
export type IntegrationReport = Schemas['IntegrationReport'];

export interface PartnerClient {
  readonly baseUrl: string;
  ping(): Promise<ApiResult<Ping>>;
  createQuote(body: QuoteRequest): Promise<ApiResult<QuoteResponse>>;
  createBooking(body: BookingRequest, opts?: BookingOptions): Promise<ApiResult<Booking>>;
  getBooking(bookingRef: string): Promise<ApiResult<Booking>>;
  cancelBooking(bookingRef: string): Promise<ApiResult<Booking>>;
  /** What cancelling would cost now. */
  previewCancellation(bookingRef: string): Promise<ApiResult<CancellationPreview>>;
  /** A free change (passenger, flight, luggage, notes); `ifMatch`: the booking's ETag. */
  amendBooking(bookingRef: string, body: AmendmentRequest, opts?: ChangeOptions): Promise<ApiResult<Booking>>;
  createChangeQuote(bookingRef: string, body: ChangeQuoteRequest): Promise<ApiResult<ChangeQuote>>;
  applyChange(bookingRef: string, body: { change_quote_id: string; offer_id: string }, opts?: ChangeOptions): Promise<ApiResult<Booking>>;
  getStatement(from: string, to: string): Promise<ApiResult<Statement>>;
  /** Sandbox only: make an offer expire now. */
  expireOffer(offerId: string): Promise<ApiResult<ExpiredOffer>>;
  /** Sandbox only: move a booking as dispatch would (driver_assigned, completed, no_show). */
  advanceBooking(bookingRef: string, to: 'driver_assigned' | 'completed' | 'no_show'): Promise<ApiResult<Booking>>;
  /** Sandbox only: sandbox quotes decline partner_paused until resumed. */
  pauseSandbox(): Promise<ApiResult<SandboxAccount>>;
  resumeSandbox(): Promise<ApiResult<SandboxAccount>>;
  /** Sandbox only: this partner's integration graded from its own sandbox traffic. */
  integrationReport(since?: string): Promise<ApiResult<IntegrationReport>>;
  createWebhookEndpoint(body: Schemas['WebhookEndpointRequest']): Promise<ApiResult<WebhookEndpointWithSecret>>;
  deleteWebhookEndpoint(endpointId: string): Promise<ApiResult<WebhookEndpoint>>;
  /** Sends a ping to the endpoint. */
  testWebhookEndpoint(endpointId: string): Promise<ApiResult<WebhookEvent>>;
  listEvents(query?: { after?: string; type?: WebhookEvent['type']; limit?: number }): Promise<ApiResult<EventList>>;
}

export const API_ROOT = '/transfers/v1';

export function apiBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(API_ROOT) ? trimmed : `${trimmed}${API_ROOT}`;
}

export function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  return (
    !!body && typeof body === 'object' && 'error' in body && !!(body as { error: unknown }).error && typeof (body as { error: unknown }).error === 'object'
  );
}

/** The headers of a change: If-Match and Idempotency-Key, when given. */
const changeHeaders = (o: ChangeOptions) => ({
  ...(o.ifMatch ? { 'If-Match': o.ifMatch } : {}),
  ...(o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : {}),
});

/**
 * The plain client: one request per call, every HTTP status returned as data (never thrown). Network errors and
 * timeouts are thrown as they come from fetch. Use `retrying()` for the behaviour a partner integration should have.
 */
export function createPartnerClient(opts: PartnerClientOptions): PartnerClient {
  const base = apiBaseUrl(opts.baseUrl);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const api = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${opts.apiKey}`, Accept: 'application/json' },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const signal = () => AbortSignal.timeout(timeoutMs);

  function result<T>(method: string, path: string, r: { data?: unknown; error?: unknown; response: Response }): ApiResult<T> {
    const body = (r.response.ok ? r.data : r.error) as T | ErrorEnvelope | undefined;
    return {
      method,
      path: `${API_ROOT}${path}`,
      status: r.response.status,
      headers: r.response.headers,
      requestId: r.response.headers.get('x-request-id'),
      body,
      data: r.response.ok ? (r.data as T) : undefined,
      error: isErrorEnvelope(body) ? body.error : undefined,
    };
  }

  return {
    baseUrl: base,
    async ping() {
      return result<Ping>('GET', '/ping', await api.GET('/ping', { signal: signal() }));
    },
    async createQuote(body) {
      return result<QuoteResponse>('POST', '/quotes', await api.POST('/quotes', { body, signal: signal() }));
    },
    async createBooking(body, o = {}) {
      const header = o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : {};
      return result<Booking>('POST', '/bookings', await api.POST('/bookings', { body, params: { header }, signal: signal() }));
    },
    async getBooking(bookingRef) {
      const r = await api.GET('/bookings/{booking_ref}', { params: { path: { booking_ref: bookingRef } }, signal: signal() });
      return result<Booking>('GET', `/bookings/${encodeURIComponent(bookingRef)}`, r);
    },
    async cancelBooking(bookingRef) {
      const r = await api.POST('/bookings/{booking_ref}/cancel', { params: { path: { booking_ref: bookingRef } }, signal: signal() });
      return result<Booking>('POST', `/bookings/${encodeURIComponent(bookingRef)}/cancel`, r);
    },
    async previewCancellation(bookingRef) {
      const r = await api.GET('/bookings/{booking_ref}/cancellation', { params: { path: { booking_ref: bookingRef } }, signal: signal() });
      return result<CancellationPreview>('GET', `/bookings/${encodeURIComponent(bookingRef)}/cancellation`, r);
    },
    async amendBooking(bookingRef, body, o = {}) {
      const r = await api.PATCH('/bookings/{booking_ref}', { params: { path: { booking_ref: bookingRef }, header: changeHeaders(o) }, body, signal: signal() });
      return result<Booking>('PATCH', `/bookings/${encodeURIComponent(bookingRef)}`, r);
    },
    async createChangeQuote(bookingRef, body) {
      const r = await api.POST('/bookings/{booking_ref}/change_quotes', { params: { path: { booking_ref: bookingRef } }, body, signal: signal() });
      return result<ChangeQuote>('POST', `/bookings/${encodeURIComponent(bookingRef)}/change_quotes`, r);
    },
    async applyChange(bookingRef, body, o = {}) {
      const r = await api.POST('/bookings/{booking_ref}/changes', {
        params: { path: { booking_ref: bookingRef }, header: changeHeaders(o) },
        body,
        signal: signal(),
      });
      return result<Booking>('POST', `/bookings/${encodeURIComponent(bookingRef)}/changes`, r);
    },
    async getStatement(from, to) {
      const r = await api.GET('/statements', { params: { query: { from, to } }, signal: signal() });
      return result<Statement>('GET', `/statements?from=${from}&to=${to}`, r);
    },
    async expireOffer(offerId) {
      const r = await api.POST('/test_helpers/offers/{offer_id}/expire', { params: { path: { offer_id: offerId } }, signal: signal() });
      return result<ExpiredOffer>('POST', `/test_helpers/offers/${encodeURIComponent(offerId)}/expire`, r);
    },
    async advanceBooking(bookingRef, to) {
      const r = await api.POST('/test_helpers/bookings/{booking_ref}/advance', {
        params: { path: { booking_ref: bookingRef } },
        body: { to },
        signal: signal(),
      });
      return result<Booking>('POST', `/test_helpers/bookings/${encodeURIComponent(bookingRef)}/advance`, r);
    },
    async pauseSandbox() {
      return result<SandboxAccount>('POST', '/test_helpers/account/pause', await api.POST('/test_helpers/account/pause', { signal: signal() }));
    },
    async resumeSandbox() {
      return result<SandboxAccount>('POST', '/test_helpers/account/resume', await api.POST('/test_helpers/account/resume', { signal: signal() }));
    },
    async integrationReport(since) {
      const r = await api.GET('/test_helpers/integration_report', { params: { query: since ? { since } : {} }, signal: signal() });
      return result<IntegrationReport>('GET', `/test_helpers/integration_report${since ? `?since=${encodeURIComponent(since)}` : ''}`, r);
    },
    async createWebhookEndpoint(body) {
      return result<WebhookEndpointWithSecret>('POST', '/webhook_endpoints', await api.POST('/webhook_endpoints', { body, signal: signal() }));
    },
    async deleteWebhookEndpoint(endpointId) {
      const r = await api.DELETE('/webhook_endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpointId } }, signal: signal() });
      return result<WebhookEndpoint>('DELETE', `/webhook_endpoints/${encodeURIComponent(endpointId)}`, r);
    },
    async testWebhookEndpoint(endpointId) {
      const r = await api.POST('/webhook_endpoints/{endpoint_id}/test', { params: { path: { endpoint_id: endpointId } }, signal: signal() });
      return result<WebhookEvent>('POST', `/webhook_endpoints/${encodeURIComponent(endpointId)}/test`, r);
    },
    async listEvents(query = {}) {
      const r = await api.GET('/events', { params: { query }, signal: signal() });
      const qs = new URLSearchParams(Object.entries(query).flatMap(([k, v]): Array<[string, string]> => (v === undefined ? [] : [[k, String(v)]]))).toString();
      return result<EventList>('GET', `/events${qs ? `?${qs}` : ''}`, r);
    },
  };
}

/**
 * A fetch that adds `Sandbox-Simulate: <fault>` to the first `times` requests it sends, then sends the rest as they
 * are: the service answers those with the fault, and the client's retries see the real answers. Every exchange is
 * handed to `seen` (status, request id, the fault simulated).
 */
export function simulatingFirst(
  fault: SimulatedFault,
  times: number,
  seen: (x: {
    method: string;
    path: string;
    status: number | null;
    requestId: string | null;
    simulated: string | null;
    idempotencyKey: string | null;
    error?: string;
  }) => void,
  base: FetchLike = (req) => fetch(req),
): FetchLike {
  let sent = 0;
  return async (req) => {
    const simulate = sent < times ? fault : null;
    sent += 1;
    const request = { method: req.method, path: new URL(req.url).pathname, idempotencyKey: req.headers.get('idempotency-key') };
    try {
      const res = await sendChanged(req, (h) => simulate && h.set('Sandbox-Simulate', simulate), base);
      seen({ ...request, status: res.status, requestId: res.headers.get('x-request-id'), simulated: res.headers.get('sandbox-simulated') });
      return res;
    } catch (err) {
      seen({ ...request, status: null, requestId: null, simulated: simulate, error: (err as Error).name });
      throw err;
    }
  };
}

/**
 * Sends a copy of `req` with its headers changed. The copy hears `req`'s abort signal (the client's timeout) only
 * while the copy lives: undici links the two weakly, and a copy the garbage collector takes mid-request never
 * aborts, so a timed-out request goes on to its answer (seen under load, on Node 24: a certification's timeout
 * check got a 201). The copy is held here until the answer is in.
 */
export async function sendChanged(req: Request, change: (headers: Headers) => unknown, send: FetchLike): Promise<Response> {
  const out = new Request(req);
  change(out.headers);
  try {
    return await send(out);
  } finally {
    void out.signal;
  }
}

/** A 401: the key is missing, malformed, unknown or revoked. Retrying cannot help; the key must change. */
export class AuthError extends Error {
  override readonly name = 'AuthError';
  readonly status = 401;
  constructor(readonly result: ApiResult<unknown>) {
    super(
      `${result.method} ${result.path} was refused with 401 ${result.error?.code ?? 'unauthorized'}: ${result.error?.message ?? 'no message'} (request ${result.requestId ?? 'without id'})`,
    );
  }
  get requestId() {
    return this.result.requestId;
  }
}

export interface RetryPolicy {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts?: number;
  /** First backoff; doubles each retry. Default 250 ms. */
  baseDelayMs?: number;
  /** No single wait is longer; a Retry-After above it ends the retries (the server asked for more patience than we have). Default 10 s. */
  maxDelayMs?: number;
  /** Up to this fraction is added at random to each backoff so that many clients do not retry in step. Default 0.1. */
  jitter?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  reason: 'service_unavailable' | 'rate_limited' | 'in_progress' | 'network';
  status: number | null;
  requestId: string | null;
}

export type RetriedResult<T> = ApiResult<T> & { attempts: number; delaysMs: number[] };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const v = headers.get('retry-after');
  if (v === null || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function isNetworkError(err: unknown): boolean {
  if (err instanceof AuthError) return false;
  const { name, message } = (err ?? {}) as { name?: string; message?: string };
  // undici reports refused/reset connections as TypeError('fetch failed'), AbortSignal.timeout as TimeoutError.
  // Matched by name, not instanceof: the error may come from another realm (e.g. under jest).
  return (name === 'TypeError' && message === 'fetch failed') || name === 'TimeoutError' || name === 'AbortError';
}

/**
 * Runs `call` the way a partner should: 503, 429 and network errors are retried with exponential backoff (never
 * sooner than Retry-After), a 409 idempotency_conflict with details.reason 'in_progress' is retried (the caller's
 * closure re-sends the same Idempotency-Key), 401 throws AuthError, and every other status is returned as is.
 */
export async function withRetry<T>(call: () => Promise<ApiResult<T>>, policy: RetryPolicy = {}): Promise<RetriedResult<T>> {
  const maxAttempts = Math.max(1, policy.maxAttempts ?? 4);
  const base = policy.baseDelayMs ?? 250;
  const maxDelay = policy.maxDelayMs ?? 10_000;
  const jitter = policy.jitter ?? 0.1;
  const sleep = policy.sleep ?? defaultSleep;
  const random = policy.random ?? Math.random;
  const delaysMs: number[] = [];

  for (let attempt = 1; ; attempt++) {
    let res: ApiResult<T> | undefined;
    let reason: RetryInfo['reason'] | undefined;
    try {
      res = await call();
    } catch (err) {
      if (!isNetworkError(err) || attempt >= maxAttempts) throw err;
      reason = 'network';
    }
    if (res) {
      if (res.status === 401) throw new AuthError(res);
      if (res.status === 503) reason = 'service_unavailable';
      else if (res.status === 429) reason = 'rate_limited';
      else if (res.status === 409 && res.error?.code === 'idempotency_conflict' && res.error.details?.reason === 'in_progress') reason = 'in_progress';
      else return { ...res, attempts: attempt, delaysMs };
      if (attempt >= maxAttempts) return { ...res, attempts: attempt, delaysMs };
    }
    const backoff = Math.min(maxDelay, base * 2 ** (attempt - 1)) * (1 + random() * jitter);
    const asked = res ? retryAfterMs(res.headers) : undefined;
    if (asked !== undefined && asked > maxDelay && res) return { ...res, attempts: attempt, delaysMs };
    const delayMs = Math.round(Math.min(maxDelay, Math.max(backoff, asked ?? 0)));
    delaysMs.push(delayMs);
    policy.onRetry?.({ attempt, delayMs, reason: reason!, status: res?.status ?? null, requestId: res?.requestId ?? null });
    await sleep(delayMs);
  }
}

export interface RetryingPartnerClient {
  readonly baseUrl: string;
  ping(): Promise<RetriedResult<Ping>>;
  createQuote(body: QuoteRequest): Promise<RetriedResult<QuoteResponse>>;
  /** Without an Idempotency-Key one is generated, so that a retried booking can never book twice. */
  createBooking(body: BookingRequest, opts?: BookingOptions): Promise<RetriedResult<Booking>>;
  getBooking(bookingRef: string): Promise<RetriedResult<Booking>>;
  cancelBooking(bookingRef: string): Promise<RetriedResult<Booking>>;
  expireOffer(offerId: string): Promise<RetriedResult<ExpiredOffer>>;
  advanceBooking(bookingRef: string, to: 'driver_assigned' | 'completed' | 'no_show'): Promise<RetriedResult<Booking>>;
  pauseSandbox(): Promise<RetriedResult<SandboxAccount>>;
  resumeSandbox(): Promise<RetriedResult<SandboxAccount>>;
}

export function retrying(client: PartnerClient, policy: RetryPolicy = {}): RetryingPartnerClient {
  return {
    baseUrl: client.baseUrl,
    ping: () => withRetry(() => client.ping(), policy),
    createQuote: (body) => withRetry(() => client.createQuote(body), policy),
    createBooking: (body, opts = {}) => {
      const idempotencyKey = opts.idempotencyKey ?? randomUUID();
      return withRetry(() => client.createBooking(body, { idempotencyKey }), policy);
    },
    getBooking: (ref) => withRetry(() => client.getBooking(ref), policy),
    cancelBooking: (ref) => withRetry(() => client.cancelBooking(ref), policy),
    expireOffer: (id) => withRetry(() => client.expireOffer(id), policy),
    advanceBooking: (ref, to) => withRetry(() => client.advanceBooking(ref, to), policy),
    pauseSandbox: () => withRetry(() => client.pauseSandbox(), policy),
    resumeSandbox: () => withRetry(() => client.resumeSandbox(), policy),
  };
}
