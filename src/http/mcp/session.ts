import type { Write } from '../../data/write';
import { combine } from '../../data/write';
import type { ContractSurface, OperationInput } from '../surface';
import type { AuthenticatedPartner, Env, HandlerResult, RequestContext } from '../types';

/** A tool's answer: its structured content and the same in plain words, or an error an agent can act on. */
export type ToolAnswer =
  { structured: Record<string, unknown>; text: string } | { error: { code: string; message: string; details?: Record<string, unknown> } };

/** What a Transfers operation answered, as a tool reads it. */
export interface Answer {
  status: number;
  /** The JSON body (parsed from the bytes of a replay). */
  body: Record<string, unknown>;
  headers: Record<string, string>;
  result: HandlerResult;
}

/**
 * One MCP request's view of the service: the caller (authenticated by its partner key), the Transfers operations a
 * tool runs, and what the request will commit (the operations' writes, what this instance remembers afterwards,
 * whose personal data the exchange holds). The pipeline commits all of it with the request's audit row.
 */
export class ToolSession {
  private write?: Write;
  private after: Array<() => void> = [];
  private keys?: ReadonlyMap<string, Buffer>;
  subject?: string;

  constructor(
    readonly ctx: RequestContext,
    private readonly transfers: ContractSurface,
  ) {}

  get partner(): AuthenticatedPartner {
    return this.ctx.partner!;
  }
  get env(): Env {
    return this.ctx.env!;
  }
  get now(): Date {
    return this.ctx.deps.clock.now();
  }
  get scope() {
    return { partnerId: this.partner.partnerId, env: this.env, keyId: this.partner.keyId };
  }

  /** Runs a Transfers operation as the caller; a write or memory it plans is kept for the commit. */
  async run(operationId: string, input: OperationInput): Promise<Answer> {
    return this.carry(await this.invoke(operationId, input));
  }

  /** Runs a Transfers operation as the caller, its plan left to the caller to carry. */
  invoke(operationId: string, input: OperationInput): Promise<HandlerResult> {
    return this.transfers.invoke(this.ctx, operationId, input);
  }

  /**
   * An operation's answer, its plan kept for the commit. A write that could lose a race (a booking) is settled here
   * instead, by its careful path in the request's transaction, so the answer the agent gets is the one committed.
   */
  async carry(r: HandlerResult, settleInTransaction = false): Promise<Answer> {
    let result = r;
    if (settleInTransaction && r.ifLost) result = await r.ifLost();
    else this.plan({ write: r.write, afterCommit: r.afterCommit, dataKeys: r.dataKeys });
    if (settleInTransaction && result !== r) this.plan({ write: result.write, afterCommit: result.afterCommit });
    const text = result.rawBody ?? (result.body === undefined ? undefined : JSON.stringify(result.body));
    const body = (result.body ?? (text ? JSON.parse(text) : {})) as Record<string, unknown>;
    return { status: result.status, body, headers: result.headers ?? {}, result };
  }

  /** What the request commits besides its audit row (a use case's plan). */
  plan(p: { write?: Write; afterCommit?: () => void; dataKeys?: ReadonlyMap<string, Buffer> }): void {
    if (p.write) this.write = this.write ? combine(this.write, p.write) : p.write;
    if (p.afterCommit) this.after.push(p.afterCommit);
    if (p.dataKeys) this.keys = p.dataKeys;
  }

  /** Nothing the request wrote so far counts (a refusal after a booking was made in its transaction). */
  async abandon(): Promise<void> {
    this.write = undefined;
    this.after = [];
    await this.ctx.transaction?.rollback();
    this.ctx.dropTransaction();
  }

  /** The request's answer with what it commits. */
  committing(r: HandlerResult): HandlerResult {
    const after = this.after;
    return {
      ...r,
      ...(this.write ? { write: this.write } : {}),
      ...(after.length ? { afterCommit: () => after.forEach((f) => f()) } : {}),
      ...(this.keys ? { dataKeys: this.keys } : {}),
      ...(this.subject ? { subject: this.subject } : {}),
    };
  }
}

/** A Transfers error answer as a tool's error. */
export function errorOf(a: Answer): ToolAnswer {
  const e = (a.body.error ?? {}) as { code?: string; message?: string; details?: Record<string, unknown> };
  return { error: { code: e.code ?? 'internal_error', message: e.message ?? `The operation answered ${a.status}.`, details: e.details ?? {} } };
}
