import type { Knex } from 'knex';
import type { Deps } from '../deps';

export type SurfaceName = 'transfers' | 'ops' | 'marketplace' | 'none';
export type Env = 'sandbox' | 'production';

export interface AuthenticatedPartner {
  partnerId: string;
  name: string;
  currency: 'USD' | 'EUR' | 'LKR';
  paused: boolean;
  keyId: string;
}

/** Everything a handler may know about the request it serves. `trx` is the request's transaction. */
export interface RequestContext {
  readonly requestId: string;
  readonly surface: SurfaceName;
  readonly deps: Deps;
  readonly method: string;
  /** Path and query as received (for signatures and audit). */
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly rawBody: Buffer;
  trx: Knex.Transaction;
  partner?: AuthenticatedPartner;
  env?: Env;
  operator?: boolean;
  /** Memoised authentication outcome, so two security schemes do not query twice. */
  auth?: Promise<boolean>;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent verbatim instead of serialising `body` (idempotent replays are byte for byte). */
  rawBody?: string;
}
