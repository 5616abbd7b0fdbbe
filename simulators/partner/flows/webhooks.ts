import { retrying, type WebhookEndpointWithSecret, type WebhookEvent } from '../client';
import { startWebhookReceiver, type ReceivedDelivery } from '../webhook-receiver';
import { flowRecorder, sameJson, type Check, type Flow } from './flow';
import { freshBooking } from './shared';

/**
 * Webhooks: the deployment delivers to a receiver started here, signs every delivery per Standard Webhooks (checked
 * with the reference library), sends a booking's events with the booking as read, retries a failed delivery with
 * the same webhook-id, and lists the events for catching up. The receiver must be reachable from the service: by
 * default its local address (a local deployment must allow private targets for sandbox); else `--webhook-url`.
 */
export const webhooksFlow: Flow = async (client, ctx) => {
  const flow = flowRecorder('webhooks', ctx);
  // Bookings as a partner makes them (retried); the webhook calls plainly (a retried registration could register twice).
  const api = retrying(client, ctx.retryPolicy);
  const rx = await startWebhookReceiver({ port: ctx.webhooks?.port ?? 0, host: ctx.webhooks?.publicUrl ? '0.0.0.0' : '127.0.0.1' });
  const url = ctx.webhooks?.publicUrl ?? `http://127.0.0.1:${rx.port}/certification/${ctx.runId}`;
  let refused: string | undefined;
  let registeredId: string | undefined;
  const needsEndpoint = (c: Check, endpoint: unknown) => {
    if (refused) c.skip(refused);
    if (!endpoint) c.blockedBy('webhooks.register');
  };
  /** The first delivery of `eventId` to arrive (within `ms`). */
  const delivered = async (c: Check, eventId: string, ms = 20_000, nth = 1): Promise<ReceivedDelivery> => {
    const all = await rx.waitFor((ds) => ds.filter((d) => d.webhookId === eventId).length >= nth, ms).catch(() => rx.deliveries);
    const mine = all.filter((d) => d.webhookId === eventId);
    c.expect(mine.length >= nth, `no ${nth > 1 ? 'second ' : ''}delivery of ${eventId} arrived within ${ms / 1000} s`);
    const d = mine[nth - 1];
    c.note({ label: 'delivery received', method: 'POST', path: d.path, status: d.status, request_id: d.webhookId });
    c.expect(d.verified, `the delivery of ${eventId} does not verify: ${d.error}`);
    return d;
  };

  try {
    const endpoint = await flow.check(
      'webhooks.register',
      'POST /webhook_endpoints registers an endpoint and answers 201 with its whsec_ signing secret',
      async (c: Check) => {
        const r = c.record(await client.createWebhookEndpoint({ url }));
        if (r.status === 400 && r.error?.details?.fields) {
          refused =
            `the deployment refused ${url} (${r.error.message}): start it with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true, or pass ` +
            '--webhook-url with a public URL that forwards to --webhook-port';
          c.skip(refused);
        }
        c.equal(r.status, 201, 'status');
        c.expect(/^whsec_[A-Za-z0-9+/]+=*$/.test(r.data?.secret ?? ''), 'the secret is a whsec_ value');
        rx.setSecrets([r.data!.secret]);
        registeredId = r.data!.id;
        c.detail(`endpoint ${r.data!.id} delivering to ${url}`);
        return r.data as WebhookEndpointWithSecret;
      },
    );

    const ping = await flow.check(
      'webhooks.signed',
      'a test ping is delivered signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)',
      async (c: Check) => {
        needsEndpoint(c, endpoint);
        const r = c.record(await client.testWebhookEndpoint(endpoint!.id));
        c.equal(r.status, 202, 'status');
        const d = await delivered(c, r.data!.id);
        c.equal(d.event?.type, 'ping', 'type');
        c.equal(d.headers['content-type'], 'application/json', 'Content-Type');
        c.detail(`${d.webhookId} verified with the endpoint's secret (signature ${d.headers['webhook-signature'].slice(0, 12)}…)`);
        return r.data as WebhookEvent;
      },
    );

    await flow.check(
      'webhooks.booking_events',
      'booking.confirmed and booking.cancelled arrive signed, numbered by sequence, with the booking as the API answered',
      async (c: Check) => {
        needsEndpoint(c, endpoint);
        const booking = await freshBooking(api, c, ctx, 'webhooks');
        const cancelled = c.record(await api.cancelBooking(booking.booking_ref), 'cancel');
        c.equal(cancelled.status, 200, 'cancel status');
        // Matched on the body whether or not it verified (that is checked next).
        const mine = (type: string) => (ds: ReceivedDelivery[]) =>
          ds.find((d) => {
            const e = parsed(d);
            return e?.type === type && 'booking' in e.data && e.data.booking?.booking_ref === booking.booking_ref;
          });
        // Both events; or booking.confirmed refused because it does not verify, since the service then holds
        // booking.cancelled behind its retries, and the check fails on the signature anyway.
        const settled = (ds: ReceivedDelivery[]) => {
          const confirmed = mine('booking.confirmed')(ds);
          return !!confirmed && (!confirmed.verified || !!mine('booking.cancelled')(ds));
        };
        const all = await rx.waitFor(settled, 20_000).catch(() => rx.deliveries);
        for (const [type, seq, body] of [
          ['booking.confirmed', 1, booking],
          ['booking.cancelled', 2, cancelled.data],
        ] as const) {
          const d = mine(type)(all);
          c.expect(d, `no ${type} for ${booking.booking_ref} arrived within 20 s`);
          c.note({ label: `${type} received`, method: 'POST', path: d.path, status: d.status, request_id: d.webhookId });
          c.expect(d.verified, `the ${type} delivery does not verify: ${d.error}`);
          c.equal(d.event!.sequence, seq, `${type} sequence`);
          c.expect(
            sameJson('booking' in d.event!.data ? d.event!.data.booking : null, body),
            `${type}: data.booking differs from the booking the API answered`,
          );
        }
        c.detail(`${booking.booking_ref}: booking.confirmed (sequence 1) and booking.cancelled (sequence 2) verified`);
      },
    );

    await flow.check(
      'webhooks.retried',
      'a delivery answered 500 comes again, after about 5 s, with the same webhook-id and a valid signature',
      async (c: Check) => {
        needsEndpoint(c, endpoint);
        const failed = new Set<string>();
        rx.setResponder((d) => {
          if (parsed(d)?.type !== 'ping' || failed.has(d.webhookId!)) return d.verified ? 200 : 400;
          failed.add(d.webhookId!);
          return 500;
        });
        const r = c.record(await client.testWebhookEndpoint(endpoint!.id));
        c.equal(r.status, 202, 'status');
        const first = await delivered(c, r.data!.id);
        c.equal(first.status, 500, 'what the receiver answered the first delivery');
        const second = await delivered(c, r.data!.id, 30_000, 2);
        c.equal(second.body, first.body, 'the retried body');
        c.detail(`${r.data!.id} refused with 500, delivered again ${((second.at.getTime() - first.at.getTime()) / 1000).toFixed(1)} s later`);
      },
    );

    await flow.check('webhooks.replay', 'GET /events lists the events after one, in the order written, each as delivered', async (c: Check) => {
      needsEndpoint(c, endpoint);
      if (!ping) c.blockedBy('webhooks.signed');
      // Listed once every transaction that began before theirs has ended: normally at once.
      let events: WebhookEvent[] = [];
      for (let i = 0; i < 40 && events.length < 3; i += 1) {
        const r = c.record(await client.listEvents({ after: ping.id, limit: 100 }));
        c.equal(r.status, 200, 'status');
        events = r.data!.data;
        if (events.length < 3) await new Promise((res) => setTimeout(res, 250));
      }
      const types = events.map((e) => e.type);
      c.equal(types.slice(0, 3), ['booking.confirmed', 'booking.cancelled', 'ping'], 'the events after the first ping');
      const bodies = new Map(rx.deliveries.map((d) => [d.webhookId, d.body]));
      for (const e of events.slice(0, 3)) c.equal(JSON.parse(bodies.get(e.id) ?? 'null'), e, `the listed ${e.type} against its delivery`);
      c.detail(`${types.slice(0, 3).join(', ')} listed after ${ping.id}, each equal to what was delivered`);
    });
  } finally {
    // The endpoint goes with the run (an account holds at most 10 per environment).
    if (registeredId) await client.deleteWebhookEndpoint(registeredId).catch(() => undefined);
    await rx.close();
  }
  return flow.result();
};

function parsed(d: ReceivedDelivery): WebhookEvent | null {
  try {
    return JSON.parse(d.body) as WebhookEvent;
  } catch {
    return null;
  }
}
