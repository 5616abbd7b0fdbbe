import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { components } from '../../src/generated/transfers-v1';

export type WebhookEvent = components['schemas']['WebhookEvent'];

/** One delivery as the receiver saw it, and whether its signature verified (Standard Webhooks, 5-minute tolerance). */
export interface ReceivedDelivery {
  at: Date;
  path: string;
  headers: Record<string, string>;
  /** The raw body, as signed. */
  body: string;
  webhookId: string | null;
  verified: boolean;
  /** Why verification failed, when it did. */
  error: string | null;
  /** The event, when the signature verified. */
  event: WebhookEvent | null;
  /** What the receiver answered. */
  status: number;
}

export interface WebhookReceiverOptions {
  /** The endpoint's secrets (`whsec_…`); a delivery verifies if any of them verifies it. Settable later. */
  secrets?: string[];
  port?: number;
  host?: string;
  /**
   * The status to answer a delivery with (default: 200 when it verified, 400 when not), or a promise of it (to
   * answer slowly). Deliveries are recorded before they are answered.
   */
  respond?: (d: ReceivedDelivery) => number | Promise<number>;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  deliveries: ReceivedDelivery[];
  setSecrets(secrets: string[]): void;
  setResponder(respond: WebhookReceiverOptions['respond']): void;
  /** Resolves with the deliveries once `check` holds for them, or rejects after `ms`. */
  waitFor(check: (d: ReceivedDelivery[]) => boolean, ms?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** Verifies one delivery against any of the secrets with the Standard Webhooks reference library. */
export function verifyDelivery(
  body: string,
  headers: Record<string, string>,
  secrets: readonly string[],
): { event: WebhookEvent | null; error: string | null } {
  let error = 'no secret to verify with';
  for (const secret of secrets) {
    try {
      return { event: new Webhook(secret).verify(body, headers) as WebhookEvent, error: null };
    } catch (e) {
      error = (e as Error).message;
    }
  }
  return { event: null, error };
}

/**
 * A partner's webhook receiver: records every POST with its headers and raw body, verifies its signature, and
 * answers (2xx when it verified, unless told otherwise). Used by certification and by the tests.
 */
export async function startWebhookReceiver(opts: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  let secrets = opts.secrets ?? [];
  let respond = opts.respond;
  const deliveries: ReceivedDelivery[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      const { event, error } = verifyDelivery(body, headers, secrets);
      const d: ReceivedDelivery = {
        at: new Date(),
        path: req.url ?? '/',
        headers,
        body,
        webhookId: headers['webhook-id'] ?? null,
        verified: !!event,
        error,
        event,
        status: 0,
      };
      deliveries.push(d);
      for (const w of waiters) w();
      try {
        d.status = respond ? await respond(d) : event ? 200 : 400;
      } catch {
        d.status = 500;
      }
      res.writeHead(d.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ received: d.verified }));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    port,
    deliveries,
    setSecrets: (s) => {
      secrets = s;
    },
    setResponder: (r) => {
      respond = r;
    },
    waitFor: (check, ms = 15_000) =>
      new Promise((resolve, reject) => {
        const done = () => {
          if (!check(deliveries)) return;
          clearTimeout(timer);
          waiters.delete(done);
          resolve(deliveries);
        };
        const timer = setTimeout(() => {
          waiters.delete(done);
          reject(new Error(`webhook receiver: timed out after ${ms} ms (${deliveries.length} deliveries received)`));
        }, ms);
        waiters.add(done);
        done();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
