// @ts-check
/*
 * The operator API (/ops/v1), over HTTP only: the console's one source of data. Each call names the contract's
 * operation (operationId in contracts/ops-v1.yaml), so what it sends and what it reads are typed from the types
 * generated from that contract (src/generated/ops-v1.ts, `npm run generate`), which `npm run typecheck:web` checks
 * this page's scripts against. The types are comments: nothing of the server is loaded by the page.
 */
import { h, say } from './dom.js';
import { API, session } from './state.js';

/** @typedef {import('../../src/generated/ops-v1').operations} Ops */
/** @typedef {import('../../src/generated/ops-v1').components['schemas']} Schemas */
/** @typedef {keyof Ops} OpId */
/** @typedef {Schemas['AuditEntry']} AuditEntry */
/** @typedef {Schemas['Driver']} Driver */
/** @typedef {Schemas['DriverShifts']} DriverShifts */
/** @typedef {Schemas['WeeklyShift']} WeeklyShift */
/** @typedef {Schemas['ShiftException']} ShiftException */
/** @typedef {Schemas['Env']} Env */
/** @typedef {Schemas['FleetCode']} FleetCode */
/** @typedef {Schemas['Job']} Job */
/** @typedef {Schemas['JobPlace']} JobPlace */
/** @typedef {Schemas['KeyInfo']} KeyInfo */
/** @typedef {Schemas['Operator']} Operator */
/** @typedef {Schemas['OperatorRole']} Role */
/** @typedef {Schemas['OutboxMessage']} OutboxMessage */
/** @typedef {Schemas['Partner']} Partner */
/** @typedef {Schemas['RateLimit']} RateLimit */
/** @typedef {Schemas['Vehicle']} Vehicle */
/** @typedef {Schemas['VehicleCode']} VehicleCode */
/** @typedef {Schemas['Error']} ErrorBody */

/**
 * The JSON body of an operation's success answer (its 200, else its 201).
 * @template {OpId} O
 * @typedef {Ops[O]['responses'] extends { 200: { content: { 'application/json': infer B } } } ? B
 *   : Ops[O]['responses'] extends { 201: { content: { 'application/json': infer B } } } ? B : never} OkBody
 */
/**
 * The JSON body an operation takes (undefined for one that takes none).
 * @template {OpId} O
 * @typedef {Ops[O] extends { requestBody: { content: { 'application/json': infer B } } } ? B : undefined} RequestBody
 */
/** @typedef {OkBody<'getMe'>} Me */

/**
 * An answer's status and headers. `status` 0 with `networkError`: the service could not be reached.
 * @typedef {{ status: number, text: string, etag: string | null, retryAfter: string | null, requestId: string | null, networkError?: true }} Head
 */
/** @typedef {{ ok: false, json: Partial<ErrorBody> | undefined }} Refused the error envelope, when the body is JSON */
/**
 * An operation's answer, whatever its status: the success body when it is a 2xx, else the refusal.
 * @template {OpId} O
 * @typedef {Head & ({ ok: true, json: OkBody<O> } | Refused)} Answer
 */
/** @typedef {Head & ({ ok: true, json: unknown } | Refused)} AnyAnswer the answer of any operation */

/** The refusals in words, by the API's error code. @type {Record<string, string>} */
const REFUSALS = {
  assignment_conflict: 'Assignment refused',
  vehicle_too_small: 'Vehicle too small',
  job_conflict: 'Not possible for this job',
  not_found: 'Not found',
  invalid_request: 'Not accepted',
  already_exists: 'Already exists',
  forbidden: 'Not allowed for your role',
  rate_limited: 'Too many requests',
};

/** An assignment_conflict in words, by its `details.reason` (the message says the rest). @type {Record<string, string>} */
const CONFLICTS = {
  overlap: 'Double booking refused',
  travel_time: 'Not enough time between jobs',
  outside_shift: "Outside the driver's hours",
  class_full: 'No room left in the class',
};

/** @type {(r: AnyAnswer) => void} */
let unauthorized = () => {};

/** The rejection of a request whose token the API refused: the console has signed out, there is nothing more to do. */
export class SignedOut extends Error {}

/** Ends a chain of requests quietly when the console signed out on the way; anything else is a fault. @param {unknown} err */
export function stopIfSignedOut(err) {
  if (!(err instanceof SignedOut)) throw err;
}

/**
 * An event listener that talks to the API: when the session ends on the way, it just stops.
 * @template {unknown[]} A
 * @param {(...args: A) => Promise<unknown>} fn
 * @returns {(...args: A) => void}
 */
export function handler(fn) {
  return (...args) => {
    fn(...args).catch(stopIfSignedOut);
  };
}

/** What to do when the API no longer accepts the session's token (session.js signs out). @param {(r: AnyAnswer) => void} fn */
export function whenUnauthorized(fn) {
  unauthorized = fn;
}

/**
 * One request to the operator API with the token. Resolves with the answer (any status); a 401 while signed in
 * means the token is no longer accepted: the console forgets it and asks again (and the promise rejects, SignedOut).
 * @template {OpId} O
 * @param {O} _op the contract's operation: it types `body` and the answer
 * @param {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} method
 * @param {string} path below /ops/v1, with its query
 * @param {RequestBody<O>} [body]
 * @param {{ token?: string, etag?: string | null, accept?: string }} [opts] `token`: a candidate's, not the session's (no sign-out on
 *   401); `accept`: another representation than JSON (a statement as text/csv), read in `text`
 * @returns {Promise<Answer<O>>}
 */
export async function api(_op, method, path, body, opts = {}) {
  /** @type {Record<string, string>} */
  const headers = { Authorization: 'Bearer ' + (opts.token || session.token), Accept: opts.accept || 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.etag) headers['If-None-Match'] = opts.etag;
  let res;
  try {
    res = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch (err) {
    return {
      status: 0,
      ok: false,
      json: undefined,
      text: String(err instanceof Error ? err.message : err),
      etag: null,
      retryAfter: null,
      requestId: null,
      networkError: true,
    };
  }
  const text = await res.text();
  /** @type {unknown} */
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const head = {
    status: res.status,
    text,
    etag: res.headers.get('ETag'),
    retryAfter: res.headers.get('Retry-After'),
    requestId: res.headers.get('X-Request-Id'),
  };
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
 * The API's refusal in words: what kind of refusal, its message, and the fields it names.
 * @param {AnyAnswer} r
 */
export function refusal(r) {
  if (r.networkError) return 'The service could not be reached (' + r.text + ').';
  const e = errorOf(r);
  if (!e) return 'HTTP ' + r.status + (r.text ? ': ' + r.text.slice(0, 200) : '');
  const fields = fieldsOf(r).map((f) => f.field + ' ' + f.message);
  let text = refusalTitle(r) + ': ' + e.message;
  if (fields.length && e.message.indexOf(fields[0]) < 0) text += ' (' + fields.join('; ') + ')';
  return text;
}

/** What kind of refusal, in words (an assignment conflict by its reason). @param {AnyAnswer} r */
export function refusalTitle(r) {
  const e = errorOf(r);
  if (!e) return 'HTTP ' + r.status;
  const reason = e.code === 'assignment_conflict' && e.details ? e.details.reason : undefined;
  return (typeof reason === 'string' && CONFLICTS[reason]) || REFUSALS[e.code] || e.code;
}

/**
 * The fields a refusal names (`details.fields`, each with its message), or none.
 * @param {AnyAnswer} r
 * @returns {{ field: string, message: string }[]}
 */
export function fieldsOf(r) {
  const e = errorOf(r);
  const named = e && e.details && Array.isArray(e.details.fields) ? e.details.fields : [];
  return named.filter((f) => f && typeof f.message === 'string').map((f) => ({ field: String(f.field), message: f.message }));
}

/**
 * Shows a refusal in a status line, with the request id to look it up by in the audit log.
 * @param {HTMLElement} el
 * @param {AnyAnswer} r
 */
export function failed(el, r) {
  say(el, refusal(r), 'error');
  if (r.requestId) el.appendChild(h('span', { class: 'request-id' }, 'Request ' + r.requestId + ' in the audit log'));
}

/**
 * Shows a refusal whose fields the API named as a list of its messages, one a line, under what kind of refusal it
 * is (any other refusal as `failed` does).
 * @param {HTMLElement} el
 * @param {AnyAnswer} r
 */
export function failedWithFields(el, r) {
  const fields = fieldsOf(r);
  if (!fields.length) return failed(el, r);
  say(el, refusalTitle(r) + ':', 'error');
  el.appendChild(
    h(
      'ul',
      { class: 'field-errors' },
      fields.map((f) => h('li', {}, f.message)),
    ),
  );
  if (r.requestId) el.appendChild(h('span', { class: 'request-id' }, 'Request ' + r.requestId + ' in the audit log'));
}
