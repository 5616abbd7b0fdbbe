import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { redactHeaders, redactUrl } from '../../shared/redact';
import { guardedLookup, literalAddress, refusedAddress, refusedPort, targetPort, type AllowedPorts, type Resolve } from '../../domain/webhooks/targets';
import type { OutboundExchange } from '../../domain/kernel/outbound-exchange';
import type { WebhookAttempt, WebhookPost, WebhookPoster } from '../../domain/webhooks/delivery';

const MAX_AUDITED_BYTES = 4096;

/**
 * POSTs webhook deliveries. The target is checked again at every attempt: an IP literal before connecting, a name
 * through guardedLookup, which resolves, checks every address and connects to the ones checked. No redirects are
 * followed (a 3xx is a failure), no connection is reused across attempts, and the whole exchange (connect, send,
 * answer) is bounded by `timeoutMs`. Never throws: every failure is an attempt with its error. A public address on
 * a port `allowedPorts` does not hold (config.webhooks.allowedPorts) is refused the same way, before any connection.
 */
export class HttpWebhookSender implements WebhookPoster {
  constructor(private readonly opts: { timeoutMs: number; resolve: Resolve; allowedPorts?: AllowedPorts }) {}

  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  async post(p: WebhookPost): Promise<WebhookAttempt> {
    const started = performance.now();
    const u = new URL(p.url);
    const exchange: OutboundExchange = {
      requestId: p.requestId,
      startedAt: p.startedAt.toISOString(),
      method: 'POST',
      url: redactUrl(u.href),
      path: redactUrl(u.href),
      requestHeaders: redactHeaders(p.headers),
      requestBody: parse(p.body),
      status: null,
      responseHeaders: {},
      responseBody: null,
      durationMs: 0,
      error: null,
    };
    const done = (error: string | null): WebhookAttempt => {
      exchange.durationMs = Math.round(performance.now() - started);
      exchange.error = error;
      return { ok: error === null, error, exchange };
    };
    const literal = literalAddress(u);
    const refused = literal ? (refusedAddress(literal, p.allowPrivate) ?? refusedPort(literal, targetPort(u), this.opts.allowedPorts ?? null)) : null;
    if (refused) return done(`refused: ${refused}`);
    try {
      const res = await this.send(u, p);
      exchange.status = res.status;
      exchange.responseHeaders = redactHeaders(res.headers);
      exchange.responseBody = res.body ? parse(res.body) : null;
      return done(res.status >= 200 && res.status < 300 ? null : `the endpoint answered ${res.status}`);
    } catch (e) {
      return done((e as Error).message || String(e));
    }
  }

  private send(u: URL, p: WebhookPost): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
    const transport = u.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const req = transport.request(u, {
        method: 'POST',
        headers: { ...p.headers, 'Content-Length': Buffer.byteLength(p.body) },
        lookup: guardedLookup(p.allowPrivate, this.opts.resolve, { port: targetPort(u), allowed: this.opts.allowedPorts ?? null }),
        agent: false,
      });
      const timer = setTimeout(() => req.destroy(new Error(`timed out after ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
      req.on('error', (e) => settle(() => reject(e)));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < MAX_AUDITED_BYTES) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const body = size > MAX_AUDITED_BYTES ? `${text.slice(0, MAX_AUDITED_BYTES)}…[truncated]` : text;
          settle(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        });
        res.on('error', (e) => settle(() => reject(e)));
        res.on('close', () => settle(() => reject(new Error('the connection closed before the answer ended'))));
      });
      req.end(p.body);
    });
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
