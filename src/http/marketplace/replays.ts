import { actOnce, callDigest } from '../../domain/marketplace/replays';
import type { Operation } from '../surface';
import type { HandlerResult, RequestContext } from '../types';

/**
 * The operations that act on an order. A call identical to one already acted on (method, URL as addressed, body
 * bytes) gets the first answer again, with `Idempotent-Replayed: true` and `Original-Request-Id`, and changes
 * nothing (see domain/marketplace/replays.ts).
 *
 * Not these: searches, re-quotes and locked-quote reads (identical searches are everyday traffic, each owed fresh
 * 30-minute price marks, and repeating one changes no order), the brand list, and callbacks (not signed; their body
 * only names the order, so two different changes post identical callbacks — the re-fetched order is what counts,
 * and an older one never overwrites a newer: see domain/marketplace/orders.ts).
 */
export const ACTED_ON_ONCE = ['createOrder', 'cancelOrder', 'updateOrder', 'acknowledgeOrder'] as const;

/**
 * The answer to remember, as the pipeline sends it (the marketplace surface adds nothing to bodies); none for an
 * error: a call answered with one did nothing, and sending it again may act.
 */
const sentAnswer = (r: HandlerResult) =>
  r.status >= 300
    ? null
    : r.rawBody !== undefined
      ? { status: r.status, body: r.rawBody }
      : r.body !== undefined && !r.document
        ? { status: r.status, body: JSON.stringify(r.body) }
        : null;

function actedOnOnce(op: Operation, addressedUrl: (ctx: RequestContext) => string): Operation {
  return async (call, ctx) => {
    const orderId = (call.body as { order_id?: unknown } | undefined)?.order_id;
    const once = await actOnce(
      await ctx.tx(),
      {
        digest: callDigest(ctx.method, addressedUrl(ctx), ctx.rawBody),
        operation: call.operationId,
        orderId: typeof orderId === 'string' ? orderId : null,
        requestId: ctx.requestId,
        now: ctx.deps.clock.now(),
      },
      () => op(call, ctx),
      sentAnswer,
    );
    if (!once.replayed) return once.value;
    return {
      status: once.first.status,
      rawBody: once.first.body,
      headers: { 'Idempotent-Replayed': 'true', 'Original-Request-Id': once.first.requestId },
    };
  };
}

/** The surface's operations, those that act on an order acting once per distinct call. */
export function withReplayProtection(operations: Record<string, Operation>, addressedUrl: (ctx: RequestContext) => string): Record<string, Operation> {
  const out = { ...operations };
  for (const id of ACTED_ON_ONCE) out[id] = actedOnOnce(operations[id], addressedUrl);
  return out;
}
