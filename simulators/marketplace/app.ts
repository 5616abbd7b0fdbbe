import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request as ExpressRequest, type Response as ExpressResponse } from 'express';
import type { Clock } from '../../src/shared/clock';
import { validateOrder, type Order } from './contract';
import { MarketplaceDriver, type CallbackVia, type DriverReply, type OrderChange, type SearchRequest } from './driver';
import { dispatch } from './routes';
import { MAX_HANG_MS, MAX_LATENCY_MS, MarketplaceSimState, type Scenario, type SimOrderRecord } from './state';

/**
 * The simulated marketplace over real HTTP: its `apiin` API (routes.ts, the same code the msw handlers run) plus
 * JSON controls under /__sim — scenarios, recorded calls and orders, reset, and the drive actions that make it
 * act like the marketplace towards our service.
 */
export interface SupplierTarget {
  /** The service's MARKETPLACE_IN_URL (signed over). */
  inUrl: string;
  /** Where to send; default inUrl. */
  baseUrl?: string;
  /** The service's MARKETPLACE_CALLBACK_TOKEN. */
  callbackToken?: string;
}

export interface MarketplaceSimOptions {
  userId: string;
  privateKey: string;
  supplier?: SupplierTarget;
  /** The URL callers address the simulator by, when the Host header does not say it (e.g. behind a proxy). */
  publicUrl?: string;
  clock?: Clock;
}

export class MarketplaceSimulator {
  readonly state: MarketplaceSimState;
  readonly publicUrl?: string;
  private driver?: MarketplaceDriver;

  constructor(options: MarketplaceSimOptions) {
    this.state = new MarketplaceSimState({ userId: options.userId, privateKey: options.privateKey }, options.clock);
    this.publicUrl = options.publicUrl?.replace(/\/+$/, '');
    if (options.supplier) this.setSupplier(options.supplier);
  }

  /** Points the drive actions at the service (it may start after the simulator). */
  setSupplier(target: SupplierTarget): void {
    this.driver = new MarketplaceDriver({ ...target, privateKey: this.state.config.privateKey });
  }

  get supplier(): MarketplaceDriver {
    if (!this.driver) throw new SimError(409, 'the drive actions need the service: set SUPPLIER_IN_URL (and MARKETPLACE_CALLBACK_TOKEN for callbacks)');
    return this.driver;
  }

  /** Stores an order the simulator will serve on re-fetch, after checking it against the contract. */
  seedOrder(order: Order, event = 'seeded'): SimOrderRecord {
    const valid = validateOrder(order);
    if (!valid.ok) throw new SimError(400, valid.message.replace(/^invalid request/, 'invalid order'));
    return this.state.putOrder(order, event);
  }

  /** A new order: stored as `new`, then POST /booking/ to the service. */
  async book(order: Omit<Order, 'order_id' | 'state'> & { order_id?: string }) {
    const record = this.seedOrder({ ...order, order_id: order.order_id ?? this.state.newOrderId(), state: 'new' } as Order, 'booked');
    return { order: record, ...(await this.supplier.book(record.order)) };
  }

  async cancel(body: { order_id: string; reason?: string }) {
    const record = this.state.orders.get(body.order_id);
    if (record) this.state.transition(record, 'cancelled', 'cancelled', 'cancelled', body.reason ? { reason: body.reason } : undefined);
    return { order: record, ...(await this.supplier.cancel(body)) };
  }

  /** Applies the change to the order it serves (now `changed`), then POST /booking/update/. */
  async update(change: OrderChange) {
    const record = this.state.orders.get(change.order_id);
    if (record) this.seedOrder({ ...record.order, ...change, state: 'changed' } as Order, 'updated');
    return { order: record && this.state.orders.get(change.order_id), ...(await this.supplier.update(change)) };
  }

  /**
   * An order callback. The order (complete for `new`; for `change`, only the changed fields of a held order) is
   * stored as what the re-fetch serves, then posted with the token. The posted body is the order plus `type`, with
   * the `callback_body_override` scenario merged over it — so, with an override, it differs from the served order.
   */
  async callback(input: { type: 'new' | 'change'; order: Partial<Order> & { order_id?: string }; via?: CallbackVia }) {
    const orderId = input.order.order_id ?? this.state.newOrderId();
    const held = this.state.orders.get(orderId)?.order;
    const state = input.order.state ?? (input.type === 'new' ? 'new' : 'changed');
    const record = this.seedOrder({ ...(held ?? {}), ...input.order, order_id: orderId, state } as Order, `callback_${input.type}`);
    const posted = { type: input.type, ...record.order, ...(this.state.scenario.callback_body_override ?? {}) };
    return { order: record, posted, ...(await this.supplier.callback(posted as typeof posted & { order_id: string }, { via: input.via })) };
  }
}

export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'host',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);

export function createMarketplaceSimApp(sim: MarketplaceSimulator): express.Express {
  const app = express();
  app.disable('x-powered-by');
  const controls = express.Router();
  controls.use(express.json({ limit: '1mb' }));

  controls.get('/', (_req, res) => {
    res.json({
      user_id: sim.state.config.userId,
      scenario: sim.state.scenario,
      orders: sim.state.orders.size,
      calls: sim.state.calls.length,
    });
  });
  controls.get('/scenarios', (_req, res) => {
    res.json({ scenario: sim.state.scenario });
  });
  controls.post('/scenarios', (req, res) => {
    sim.state.scenario = parseScenario(sim.state.scenario, req.body);
    res.json({ scenario: sim.state.scenario });
  });
  controls.get('/calls', (req, res) => {
    const { operation, order_id: orderId } = req.query;
    const calls = sim.state.calls.filter(
      (c) =>
        (typeof operation !== 'string' || c.operation === operation) &&
        (typeof orderId !== 'string' ||
          (c.json as { order_id?: string } | undefined)?.order_id === orderId ||
          c.path.includes(`/booking/${encodeURIComponent(orderId)}/`)),
    );
    res.json({ calls });
  });
  controls.get('/orders', (_req, res) => {
    res.json({ orders: [...sim.state.orders.values()] });
  });
  controls.get('/orders/:order_id', (req, res) => {
    const record = sim.state.orders.get(req.params.order_id);
    if (!record) throw new SimError(404, `no order ${req.params.order_id}`);
    res.json(record);
  });
  controls.post('/orders', (req, res) => {
    const order = objectField(req.body, 'order') as unknown as Order;
    res.status(201).json(sim.seedOrder(order));
  });
  controls.post('/reset', (_req, res) => {
    sim.state.reset();
    res.json({ status: 'reset' });
  });

  type DriveResult = DriverReply<unknown> & { order?: SimOrderRecord; posted?: unknown };
  const drive = (action: (body: Record<string, unknown>) => Promise<DriveResult>) => async (req: ExpressRequest, res: ExpressResponse) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    let result;
    try {
      result = await action(body);
    } catch (e) {
      if (e instanceof SimError) throw e;
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      throw new SimError(502, `the service could not be reached: ${(e as Error).message}${cause ? ` (${cause})` : ''}`);
    }
    const { status, body: answer, request, headers: _h, ok: _ok, text: _t, ...extra } = result;
    res.json({
      ...extra,
      request: { method: request.method, url: request.url, signed_url: request.signedUrl, body: request.body },
      response: { status, body: answer },
    });
  };
  controls.post(
    '/drive/search',
    drive((b) => sim.supplier.search(b as unknown as SearchRequest)),
  );
  controls.post(
    '/drive/lock',
    drive((b) => sim.supplier.lock(stringField(b, 'vehicle_id'), stringField(b, 'price_mark'))),
  );
  controls.post(
    '/drive/requote',
    drive((b) => sim.supplier.requote(stringField(b, 'vehicle_id'), objectField(b, 'search') as unknown as SearchRequest)),
  );
  controls.post(
    '/drive/book',
    drive((b) => sim.book(objectField(b, 'order') as unknown as Order)),
  );
  controls.post(
    '/drive/cancel',
    drive((b) => sim.cancel({ order_id: stringField(b, 'order_id'), ...(typeof b.reason === 'string' ? { reason: b.reason } : {}) })),
  );
  controls.post(
    '/drive/update',
    drive((b) => sim.update({ ...b, order_id: stringField(b, 'order_id') } as OrderChange)),
  );
  controls.post(
    '/drive/confirm',
    drive((b) => sim.supplier.confirm(stringField(b, 'order_id'))),
  );
  controls.post(
    '/drive/brandlist',
    drive(() => sim.supplier.brandList()),
  );
  controls.post(
    '/drive/callback',
    drive((b) => {
      if (b.type !== 'new' && b.type !== 'change') throw new SimError(400, 'type must be "new" or "change"');
      if (b.via !== undefined && b.via !== 'query' && b.via !== 'header') throw new SimError(400, 'via must be "query" or "header"');
      return sim.callback({ type: b.type, order: objectField(b, 'order') as Partial<Order>, via: b.via as CallbackVia | undefined });
    }),
  );
  controls.use((_req, _res) => {
    throw new SimError(404, 'unknown simulator control');
  });
  app.use('/__sim', controls);

  // Everything else is the marketplace itself.
  app.use(express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const base = sim.publicUrl ?? `${req.protocol}://${req.get('host')}`;
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`${base}${req.originalUrl}`, {
      method: req.method,
      headers,
      body: hasBody && Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : hasBody ? '' : undefined,
      signal: controller.signal,
    });
    const answer = await dispatch(sim.state, request);
    if (res.destroyed || res.writableEnded) return;
    res.status(answer.status);
    answer.headers.forEach((value, name) => res.setHeader(name, value));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });

  app.use((err: unknown, _req: ExpressRequest, res: ExpressResponse, _next: NextFunction) => {
    const status = err instanceof SimError ? err.status : (err as { status?: number; type?: string })?.type === 'entity.parse.failed' ? 400 : 500;
    const message =
      err instanceof SimError ? err.message : status === 400 ? 'the body is not valid JSON' : `simulator error: ${(err as Error)?.message ?? String(err)}`;
    if (!res.headersSent) res.status(status).json({ error: message });
  });
  return app;
}

function stringField(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || !v) throw new SimError(400, `${name} must be a non-empty string`);
  return v;
}

function objectField(body: unknown, name: string): Record<string, unknown> {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new SimError(400, `${name} must be an object`);
  return v as Record<string, unknown>;
}

const isInt = (v: unknown, min: number, max: number): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** Merges a POST /__sim/scenarios body into the current scenario; null clears a knob. */
export function parseScenario(current: Scenario, input: unknown): Scenario {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new SimError(400, 'the body must be a JSON object');
  const body = input as Record<string, unknown>;
  const unknownKeys = Object.keys(body).filter((k) => !['fail_next', 'latency_ms', 'callback_body_override'].includes(k));
  if (unknownKeys.length) throw new SimError(400, `unknown scenario knob(s): ${unknownKeys.join(', ')}`);
  const next: Scenario = { ...current };
  if ('fail_next' in body) {
    const f = body.fail_next as Record<string, unknown> | null;
    if (f === null) next.fail_next = null;
    else if (typeof f !== 'object' || Array.isArray(f) || !isInt(f.count, 0, 1000))
      throw new SimError(400, 'fail_next needs count (0–1000) and status, or timeout: true');
    else if (f.timeout === true) {
      if (f.hang_ms !== undefined && !isInt(f.hang_ms, 0, MAX_HANG_MS)) throw new SimError(400, `fail_next.hang_ms must be 0–${MAX_HANG_MS}`);
      next.fail_next = f.count === 0 ? null : { count: f.count, timeout: true, ...(f.hang_ms !== undefined ? { hang_ms: f.hang_ms as number } : {}) };
    } else if (isInt(f.status, 400, 599)) next.fail_next = f.count === 0 ? null : { count: f.count, status: f.status };
    else throw new SimError(400, 'fail_next.status must be 400–599 (or set timeout: true)');
  }
  if ('latency_ms' in body) {
    if (body.latency_ms === null) next.latency_ms = 0;
    else if (isInt(body.latency_ms, 0, MAX_LATENCY_MS)) next.latency_ms = body.latency_ms;
    else throw new SimError(400, `latency_ms must be 0–${MAX_LATENCY_MS}`);
  }
  if ('callback_body_override' in body) {
    const o = body.callback_body_override;
    if (o !== null && (typeof o !== 'object' || Array.isArray(o))) throw new SimError(400, 'callback_body_override must be an object or null');
    next.callback_body_override = o as Record<string, unknown> | null;
  }
  return next;
}

export interface RunningMarketplaceSim {
  url: string;
  port: number;
  sim: MarketplaceSimulator;
  server: http.Server;
  stop(): Promise<void>;
}

/** Starts the simulator on host:port (port 0: a free one). */
export async function startMarketplaceSim(options: MarketplaceSimOptions & { port?: number; host?: string }): Promise<RunningMarketplaceSim> {
  const sim = new MarketplaceSimulator(options);
  const server = http.createServer(createMarketplaceSimApp(sim));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    sim,
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
