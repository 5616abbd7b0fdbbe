import { AuthError, type ApiResult, type FetchLike, type PartnerClient, type RetryPolicy } from '../client';

export type RequirementStatus = 'pass' | 'fail' | 'skip';

/** One request made while checking a requirement. */
export interface Evidence {
  /** What the request was for, when the method and path do not say it. */
  label: string;
  method: string;
  path: string;
  status: number | null;
  request_id: string | null;
  note?: string;
}

export interface RequirementResult {
  id: string;
  flow: string;
  title: string;
  status: RequirementStatus;
  detail: string;
  evidence: Evidence[];
  duration_ms: number;
}

export interface FlowResult {
  flow: string;
  requirements: RequirementResult[];
}

export interface FlowContext {
  baseUrl: string;
  /** The sandbox key being certified. */
  apiKey: string;
  /** A plain client for another key (e.g. the paused account's), with the same transport. */
  clientFor(apiKey: string): PartnerClient;
  /** A paused account's sandbox key; without it partner_paused is skipped. */
  pausedKey?: string;
  /** Unique per run: prefixes partner references and idempotency keys, so runs never collide. */
  runId: string;
  /** The service's clock at the start of the run (from /ping), so pickups are relative to the server, not to us. */
  serverNow: Date;
  fetch?: FetchLike;
  retryPolicy?: RetryPolicy;
  /**
   * Where the webhook receiver listens (`port`, default any) and the URL the service should deliver to
   * (`publicUrl`, e.g. a tunnel to that port; default the receiver's own local address).
   */
  webhooks?: { port?: number; publicUrl?: string };
  onRequirementStart?(id: string, title: string): void;
  onRequirement?(result: RequirementResult): void;
}

export type Flow = (client: PartnerClient, ctx: FlowContext) => Promise<FlowResult>;

export class RequirementFailure extends Error {
  override readonly name = 'RequirementFailure';
}

class Skip extends Error {
  override readonly name = 'Skip';
}

export interface Check {
  /** Keeps the exchange as evidence and hands it back. */
  record<R extends ApiResult<unknown>>(res: R, label?: string, note?: string): R;
  note(evidence: Evidence): void;
  /** What was seen, shown with a passing requirement. */
  detail(text: string): void;
  expect(condition: unknown, message: string): asserts condition;
  equal(actual: unknown, expected: unknown, what: string): void;
  /** Stop here: an earlier requirement this one builds on did not pass. */
  blockedBy(requirementId: string): never;
  skip(reason: string): never;
}

/** Collects a flow's requirements, timing each and turning thrown failures into a failed row. */
export function flowRecorder(flow: string, ctx: FlowContext) {
  const requirements: RequirementResult[] = [];

  async function check<T>(id: string, title: string, body: (c: Check) => Promise<T>): Promise<T | undefined> {
    ctx.onRequirementStart?.(id, title);
    const evidence: Evidence[] = [];
    let detail = '';
    const c: Check = {
      record(res, label, note) {
        evidence.push({ label: label ?? '', method: res.method, path: res.path, status: res.status, request_id: res.requestId, ...(note ? { note } : {}) });
        return res;
      },
      note(e) {
        evidence.push(e);
      },
      detail(text) {
        detail = text;
      },
      expect(condition, message): asserts condition {
        if (!condition) throw new RequirementFailure(message);
      },
      equal(actual, expected, what) {
        if (!sameJson(actual, expected)) throw new RequirementFailure(`${what}: expected ${show(expected)}, got ${show(actual)}`);
      },
      blockedBy(requirementId) {
        throw new RequirementFailure(`not checked: it needs ${requirementId}, which did not pass`);
      },
      skip(reason) {
        throw new Skip(reason);
      },
    };
    const started = performance.now();
    let status: RequirementStatus = 'pass';
    let value: T | undefined;
    try {
      value = await body(c);
    } catch (err) {
      if (err instanceof Skip) {
        status = 'skip';
        detail = err.message;
      } else {
        status = 'fail';
        if (err instanceof AuthError) {
          c.record(err.result);
          detail = `unexpected 401: ${err.message}`;
        } else if (err instanceof RequirementFailure) detail = err.message;
        else detail = `${(err as Error)?.name ?? 'Error'}: ${(err as Error)?.message ?? String(err)}${causeOf(err)}`;
      }
    }
    const result: RequirementResult = { id, flow, title, status, detail, evidence, duration_ms: Math.round(performance.now() - started) };
    requirements.push(result);
    ctx.onRequirement?.(result);
    return status === 'pass' ? value : undefined;
  }

  return { check, result: (): FlowResult => ({ flow, requirements }) };
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause ? ` (${cause.code ?? cause.message ?? String(cause)})` : '';
}

export function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/**
 * Deep equality of JSON values, without prototype checks: response bodies are parsed in fetch's realm, which under
 * jest is not the realm of the literals they are compared with, so util.isDeepStrictEqual would call [] and [] unequal.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}
