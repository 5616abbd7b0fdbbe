/**
 * Handler types derived from the generated contract types (src/generated, made by `npm run generate` from
 * contracts/*.yaml): request bodies, parameters and the union of documented responses of each operation.
 */
import type { Write } from '../data/write';
import type { ErrorStatus } from './errors';
import type { Document, HandlerResult } from './types';

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON request body (| undefined when the contract makes it optional). */
export type BodyOf<Ops, O extends keyof Ops> = Ops[O] extends { requestBody: infer R }
  ? JsonOf<NonNullable<R>>
  : Ops[O] extends { requestBody?: infer R }
    ? JsonOf<NonNullable<R>> | undefined
    : never;

export type PathParamsOf<Ops, O extends keyof Ops> = Ops[O] extends { parameters: { path: infer P } } ? P : never;
export type QueryOf<Ops, O extends keyof Ops> = Ops[O] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** `{ status, body }` for each documented status; `omit` drops surface-wide fields the pipeline adds (e.g. env). */
export type ReplyOf<Ops, O extends keyof Ops, Omitted extends string = never> = Ops[O] extends { responses: infer R }
  ? | {
        [S in keyof R]: (
          | ([JsonOf<R[S]>] extends [never]
              ? /** A response without content (304). */ { status: S; body?: undefined }
              : { status: S; body: JsonOf<R[S]> extends infer B ? (B extends object ? Omit<B, Omitted> : B) : never })
          /** A document (a page, the contract as YAML…) instead of a JSON body. */
          | { status: S; document: Document }
        ) & {
          headers?: Record<string, string>;
          rawBody?: string;
        } & Commit;
      }[keyof R]
    | Verbatim
  : never;

/**
 * An answer sent as exact bytes: one stored against an Idempotency-Key (a decision, or a refusal) and replayed as
 * it was. Its bytes were made from the contract's types when first answered.
 */
export interface Verbatim extends Commit {
  status: 200 | 201 | ErrorStatus;
  rawBody: string;
  body?: undefined;
  headers?: Record<string, string>;
  /** Bytes that are not JSON (a statement as CSV, which the contract lists as text/csv). */
  contentType?: string;
}

/** How an answer commits (HandlerResult's plan fields; see domain/kernel/plan.ts). */
interface Commit {
  write?: Write;
  ifLost?: () => Promise<HandlerResult>;
  afterCommit?: () => void;
  dataKeys?: ReadonlyMap<string, Buffer>;
  subject?: string;
}
