import type { OpenTx, Sql, Tx } from '../data/database';
import type { Write } from '../data/write';
import type { Deps } from '../deps';
import type { SaleTerms } from '../domain/terms/terms';

export type SurfaceName =
  'transfers' | 'mcp' | 'console' | 'ops' | 'ops-console' | 'driver' | 'driver-app' | 'tracking' | 'marketplace' | 'metrics' | 'webhooks' | 'none';
export type Env = 'sandbox' | 'production';

export interface AuthenticatedPartner {
  partnerId: string;
  name: string;
  currency: 'USD' | 'EUR' | 'LKR';
  paused: boolean;
  keyId: string;
  /** The partner's vehicle codes → our fleet codes. */
  vocabulary: ReadonlyMap<string, string>;
  /** The partner's terms in force: they price its quotes. */
  terms: SaleTerms;
  /** The partner's rate limit in this environment, when an operator set one. */
  rateLimit?: { requestsPerSecond: number; burst: number };
  /** The version of all the above as this request knows it (asserted at commit; see KeyCache). */
  authVersion: string;
}

export type OperatorRole = 'admin' | 'dispatcher' | 'viewer' | 'metrics';

export interface AuthenticatedOperator {
  /** `bootstrap` for OPERATOR_TOKEN, else the named operator's id. */
  operatorId: string;
  name: string;
  role: OperatorRole;
}

/** What an operation receives: the request as the contract names it, decoded and validated. */
export interface OperationCall<Body = unknown, Params = Record<string, string>, Query = Record<string, unknown>> {
  operationId: string;
  params: Params;
  query: Query;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  body: Body;
}

export interface Document {
  contentType: string;
  bytes: Buffer;
  /** Cacheable for this long (static assets); otherwise no-store. */
  cacheSeconds?: number;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Sent verbatim instead of serialising `body` (idempotent replays are byte for byte). With `body`, the bytes are
   * that value serialised (a booking's answer, stored against its key): the audit row seals the value, not a parse.
   */
  rawBody?: string;
  /** The content type of `rawBody` when it is not JSON (a statement as CSV); audited as a JSON string. */
  contentType?: string;
  /**
   * A document instead of JSON (a page, a script, the contract itself): sent with its own content type. The audit
   * row keeps its content type, size and SHA-256, not its bytes.
   */
  document?: Document;
  /** Committed with this request's audit row in one statement (see data/write.ts). */
  write?: Write;
  /** The write lost a race: the careful path, in the request's transaction (see domain/kernel/plan.ts). */
  ifLost?: () => Promise<HandlerResult>;
  /** Runs once the request has committed: what this instance remembers of it. */
  afterCommit?: () => void;
  /**
   * Whose personal data the request and its answer hold, when neither names it (the driver's position: the job it
   * was recorded for; an erasure request: FORGOTTEN). See domain/kernel/seal-personal.
   */
  subject?: string;
  /** Data keys for the subjects the write creates (see domain/kernel/plan.ts). */
  dataKeys?: ReadonlyMap<string, Buffer>;
  /**
   * The answer echoes stored exchanges (the contract's `x-audit-response: digest`): its audit row keeps its size and
   * digest, not the answer, so reading the audit log never feeds on itself.
   */
  auditDigest?: boolean;
  /**
   * What the audit row keeps of the answer instead of the bytes sent, when those say in prose what a structured part
   * of them holds (an MCP tool result's text, which may name the traveller): the structured part is sealed as any
   * body is, the prose is not kept.
   */
  auditBody?: unknown;
}

/**
 * Everything a handler may know about the request it serves. There is no transaction until a handler asks for
 * one (`tx()`): reads run on their own, and a handler that changes state either opens the request's transaction
 * (the pipeline appends the audit row to it and commits) or returns a `write` that commits with the audit row in
 * one statement.
 */
export class RequestContext {
  readonly requestId: string;
  readonly surface: SurfaceName;
  readonly deps: Deps;
  readonly method: string;
  /** Path and query as received (for signatures and audit). */
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly rawBody: Buffer;
  /** The client's address: the socket's peer, or the address a trusted proxy names (TRUST_PROXY). */
  readonly clientAddress?: string;
  /** The W3C trace id of the caller's `traceparent`, when it sent a valid one. */
  readonly traceId?: string;
  /** The wall clock at arrival: the audit row's time, as the database's own clock stamps rows (never a test's clock). */
  readonly arrivedAt: Date;
  /** The monotonic clock at arrival (the request's duration). */
  readonly started: bigint;
  partner?: AuthenticatedPartner;
  env?: Env;
  /** The operator whose token the request carries (operator surfaces). */
  operator?: AuthenticatedOperator;
  /** The driver whose token the request carries (the driver API). */
  driver?: { driverId: string; name: string; tokenId: string };
  /** The contract operation the request was routed to (metrics); unset for a route miss. */
  operationId?: string;
  /**
   * Set once a credential was accepted for the route and nothing refused the request before its operation: the
   * audit row then keeps the whole request. Until then (401, 403, 404, 405, 413, 414, 429, public pages) it keeps
   * a trace of the body: its size, digest and first KiB.
   */
  admitted = false;
  /** The body as decoded under the text policy, once the surface has judged it. */
  decodedBody?: { value: unknown; text: string };
  /** Writes the request owes besides its handler's (e.g. the key's last-used time), committed with the audit row. */
  owed: Write[] = [];
  /** The surface's authentication outcome, once asked (several security schemes share one lookup). */
  authenticated?: Promise<boolean>;
  /** Set when the request runs again because its credentials changed meanwhile: read them from the database. */
  freshCredentials = false;
  /** The sandbox fault this request simulates (`Sandbox-Simulate`), named in the answer's headers. */
  simulated?: string;
  private opening?: Promise<OpenTx>;
  private opened?: OpenTx;

  constructor(
    init: Pick<RequestContext, 'requestId' | 'surface' | 'deps' | 'method' | 'url' | 'headers' | 'rawBody' | 'clientAddress' | 'traceId'> &
      Partial<Pick<RequestContext, 'arrivedAt' | 'started'>>,
  ) {
    this.requestId = init.requestId;
    this.surface = init.surface;
    this.deps = init.deps;
    this.method = init.method;
    this.url = init.url;
    this.headers = init.headers;
    this.rawBody = init.rawBody;
    this.clientAddress = init.clientAddress;
    this.traceId = init.traceId;
    this.arrivedAt = init.arrivedAt ?? new Date();
    this.started = init.started ?? process.hrtime.bigint();
  }

  /** The request's transaction once opened, else the database (one statement, one implicit transaction). */
  get sql(): Sql {
    return this.opened ?? this.deps.db;
  }

  /** Opens the request's transaction (once): what runs in it commits with the audit row, or not at all. */
  tx(): Promise<Tx> {
    this.opening ??= this.deps.db.begin().then((t) => (this.opened = t));
    return this.opening;
  }

  /** The transaction, if a handler opened one. */
  get transaction(): OpenTx | undefined {
    return this.opened;
  }

  /** Forgets a transaction that was rolled back (the audit row then commits on its own). */
  dropTransaction(): void {
    this.opened = undefined;
    this.opening = undefined;
  }

  /** Back to what arrived, to run the request again (nothing of the first run was committed). */
  restart(): void {
    this.dropTransaction();
    this.partner = undefined;
    this.env = undefined;
    this.operator = undefined;
    this.driver = undefined;
    this.operationId = undefined;
    this.admitted = false;
    this.decodedBody = undefined;
    this.authenticated = undefined;
    this.simulated = undefined;
    this.owed = [];
    this.freshCredentials = true;
  }
}
