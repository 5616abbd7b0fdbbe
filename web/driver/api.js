// @ts-check
/*
 * The driver API (/driver/v1), over HTTP only: the app's one source of data. Each call names the contract's
 * operation (operationId in contracts/driver-v1.yaml), so what it sends and reads is typed from the types generated
 * from that contract (src/generated/driver-v1.ts, `npm run generate`), which `npm run typecheck:web` checks these
 * scripts against. The types are comments: nothing of the server is loaded by the page.
 *
 * The phone may be on a weak signal: a request that has no answer within TIMEOUT_MS is given up as a network failure
 * (the caller queues what must still be sent, queue.js).
 */
import { API, session } from './state.js';

/** @typedef {import('../../src/generated/driver-v1').operations} Ops */
/** @typedef {import('../../src/generated/driver-v1').components['schemas']} Schemas */
/** @typedef {keyof Ops} OpId */
/** @typedef {Schemas['DriverJob']} Job */
/** @typedef {Schemas['Place']} Place */
/** @typedef {Schemas['Error']} ErrorBody */
/** @typedef {Job['next'][number]} NextStatus */

/**
 * The JSON body of an operation's success answer (its 200, else its 202).
 * @template {OpId} O
 * @typedef {Ops[O]['responses'] extends { 200: { content: { 'application/json': infer B } } } ? B
 *   : Ops[O]['responses'] extends { 202: { content: { 'application/json': infer B } } } ? B : never} OkBody
 */
/**
 * The JSON body an operation takes (undefined for one that takes none).
 * @template {OpId} O
 * @typedef {Ops[O] extends { requestBody: { content: { 'application/json': infer B } } } ? B : undefined} RequestBody
 */
/** @typedef {OkBody<'getDriverMe'>} Me */

/**
 * An answer's status and headers. `status` 0 with `networkError`: the service could not be reached (offline, no
 * answer in time).
 * @typedef {{ status: number, text: string, retryAfter: string | null, networkError?: true }} Head
 */
/** @typedef {{ ok: false, json: Partial<ErrorBody> | undefined }} Refused the error envelope, when the body is JSON */
/**
 * An operation's answer, whatever its status: the success body when it is a 2xx, else the refusal.
 * @template {OpId} O
 * @typedef {Head & ({ ok: true, json: OkBody<O> } | Refused)} Answer
 */
/** @typedef {Head & ({ ok: true, json: unknown } | Refused)} AnyAnswer the answer of any operation */

/** How long a request may take before it counts as "no network". */
export const TIMEOUT_MS = 20000;

/** What a driver reads when the API stops accepting the token. */
export const REVOKED = 'This token was revoked or is wrong — ask dispatch for a new one.';

/** @type {(r: AnyAnswer) => void} */
let unauthorized = () => {};

/** The rejection of a request whose token the API refused: the app has signed out, there is nothing more to do. */
export class SignedOut extends Error {}

/** Ends a chain of requests quietly when the app signed out on the way; anything else is a fault. @param {unknown} err */
export function stopIfSignedOut(err) {
  if (!(err instanceof SignedOut)) throw err;
}

/** What to do when the API no longer accepts the session's token (session.js signs out). @param {(r: AnyAnswer) => void} fn */
export function whenUnauthorized(fn) {
  unauthorized = fn;
}

/**
 * One request to the driver API with the token. Resolves with the answer (any status, or status 0 when the service
 * could not be reached); a 401 while signed in means the token is no longer accepted: the app forgets it and shows
 * the sign-in (and the promise rejects, SignedOut).
 * @template {OpId} O
 * @param {O} _op the contract's operation: it types `body` and the answer
 * @param {'GET' | 'POST'} method
 * @param {string} path below /driver/v1, with its query
 * @param {RequestBody<O>} [body]
 * @param {{ token?: string }} [opts] `token`: a candidate's, not the session's (no sign-out on 401)
 * @returns {Promise<Answer<O>>}
 */
export async function api(_op, method, path, body, opts = {}) {
  /** @type {Record<string, string>} */
  const headers = { Authorization: 'Bearer ' + (opts.token || session.token), Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  let res;
  let text;
  try {
    res = await fetch(API + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      signal: abort.signal,
    });
    text = await res.text();
  } catch (err) {
    return { status: 0, ok: false, json: undefined, text: String(err instanceof Error ? err.message : err), retryAfter: null, networkError: true };
  } finally {
    clearTimeout(timer);
  }
  /** @type {unknown} */
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const head = { status: res.status, text, retryAfter: res.headers.get('Retry-After') };
  // The body is the contract's for the status (the service validates its answers); an error's may come from elsewhere.
  /** @type {Answer<O>} */
  const r = res.ok
    ? { ...head, ok: true, json: /** @type {OkBody<O>} */ (json) }
    : { ...head, ok: false, json: /** @type {Partial<ErrorBody> | undefined} */ (json) };
  if (res.status === 401 && !opts.token) {
    unauthorized(r);
    throw new SignedOut('signed out');
  }
  return r;
}

/**
 * The API's error, when the answer is a refusal in its envelope.
 * @param {AnyAnswer} r
 */
export function errorOf(r) {
  return !r.ok && r.json && typeof r.json === 'object' && r.json.error ? r.json.error : undefined;
}

/**
 * Whether it is worth sending the same request again later: no answer, the service busy or failing. Anything else
 * (a 2xx, or a refusal of this very request) is final.
 * @param {AnyAnswer} r
 */
export function retryable(r) {
  return r.status === 0 || r.status === 408 || r.status === 429 || r.status >= 500;
}

/**
 * A refusal in plain words, for a driver.
 * @param {AnyAnswer} r
 */
export function plain(r) {
  if (r.networkError) return 'No network — could not reach the service.';
  if (r.status === 429) return 'The service is busy — trying again' + (r.retryAfter ? ' in ' + r.retryAfter + ' s.' : '.');
  if (r.status >= 500) return 'The service has a problem right now — trying again.';
  const e = errorOf(r);
  return e ? e.message : 'The service answered ' + r.status + '.';
}
