import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import os from 'node:os';
import type { Knex } from 'knex';
import { loadConfig, type Config } from './config/env';
import { makeDirectKnex, makeKnex, migrateLatest, secureDataDir, sessionTimeouts } from './data/knex';
import { createApp } from './http/app';
import { answerConnect, answerUnparsable } from './http/client-error';
import { guardConnections } from './http/connections';
import { makeLogger, type Logger } from './shared/logger';
import { systemClock, type Clock } from './shared/clock';
import { keySecret } from './shared/ids';
import type { Deps } from './deps';
import { AUDIT_MONTHS_AHEAD, scheduleRetention } from './retention';
import { Database } from './data/database';
import { KeyCache } from './domain/partners/key-cache';
import { RecentBookingFacts } from './domain/bookings/recent';
import { FleetCapacity } from './domain/fleet/capacity';
import { ensureAuditPartitions } from './data/repositories/audit-repository';
import { sessionTimeoutSettings } from './data/repositories/health-repository';
import { marketplaceChannel, startOutboxWorker } from './domain/outbox/worker';
import { webhookChannel } from './domain/webhooks/delivery';
import { systemResolve, type Resolve } from './domain/webhooks/targets';
import { HttpWebhookSender } from './adapters/webhooks/http-webhook-sender';
import { SharedAnonymousBuckets } from './adapters/rate-limits/shared-buckets';
import { HttpMarketplaceClient } from './adapters/marketplace/http-marketplace-client';
import { registerSecret } from './shared/redact';
import { createHttpFlightStatus } from './adapters/flights/http-flight-status';
import { appendAudit } from './data/repositories/audit-repository';
import { DataKeys } from './domain/kernel/data-keys';
import { isPublicPlaceName } from './domain/geo/place-index';
import { exchangeAudit } from './domain/audit/exchange-audit';
import type { OutboundExchange } from './domain/kernel/outbound-exchange';
import { startFlightPoller } from './domain/flights/poll-flights';
import { startAutoDispatch } from './domain/dispatch/auto-dispatch';
import { startPrivacyRetention } from './domain/privacy/retention';
import type { FlightStatus } from './domain/flights/flight-status';
import { EmptyBuckets, MemoryTokenBuckets } from './http/token-buckets';
import { marketplaceNoticeBody } from './adapters/marketplace/notice-bodies';
import { Metrics } from './http/metrics';

export interface StartOptions {
  config?: Config;
  clock?: Clock;
  logger?: Logger;
  /** An existing knex (tests share one per file); otherwise one is made from the config. */
  db?: Knex;
  /** Deliver the outbox in the background: webhooks always, marketplace calls when it is configured (default true). */
  outboxWorker?: boolean;
  /** How webhook hosts resolve (default: DNS). */
  resolveHost?: Resolve;
  /** The flight-status provider (default: the HTTP adapter when FLIGHT_STATUS_URL is set, else none). */
  flightStatus?: FlightStatus;
  /** Poll flights in the background (default true, when there is a provider). */
  flightPoller?: boolean;
  /** Run the automatic dispatch pass (default: DISPATCH_AUTO). */
  autoDispatch?: boolean;
  /** How often the privacy retention pass runs on this instance (default every 10 minutes; the lease keeps it to one at a time). */
  privacyRetentionEveryMs?: number;
}

/** The privacy retention pass runs this often on each instance, by default. */
export const PRIVACY_RETENTION_EVERY_MS = 10 * 60_000;

export interface RunningServer {
  port: number;
  url: string;
  /** Where the operator API and console are served: OPS_LISTEN's address when set, else `url`. */
  opsUrl: string;
  deps: Deps;
  operatorToken: string;
  operatorTokenGenerated: boolean;
  server: http.Server;
  /** Stops accepting, drains in-flight requests, then closes the database pool (unless it was passed in). */
  stop(): Promise<void>;
}

/** OPERATOR_TOKEN, else the one kept in DATA_DIR, else a new one written there. */
export function resolveOperatorToken(config: Config): { token: string; generated: boolean } {
  if (config.operatorToken) return { token: config.operatorToken, generated: false };
  if (config.dataDir.startsWith('memory://')) return { token: `op_${keySecret()}`, generated: true };
  const file = path.join(config.dataDir, 'operator-token');
  if (fs.existsSync(file)) return { token: fs.readFileSync(file, 'utf8').trim(), generated: false };
  fs.mkdirSync(config.dataDir, { recursive: true });
  const token = `op_${keySecret()}`;
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, generated: true };
}

/** Migrates on start: through DATABASE_DIRECT_URL when the service connects through a pooler. */
async function migrate(config: Config, knex: Knex): Promise<void> {
  if (!config.databasePooled) return migrateLatest(knex, config.databaseSchema);
  const direct = makeDirectKnex(config);
  try {
    await migrateLatest(direct, config.databaseSchema);
  } finally {
    await direct.destroy();
  }
}

/**
 * Behind a transaction pooler the service sets nothing per session: the pooler must (deploy/pgbouncer.ini's
 * connect_query, or the role's defaults). Without them a request could wait on a row lock, or run a statement,
 * without end: said loudly at start, where an operator looks.
 */
async function checkPooledSessions(db: Database, config: Config, logger: Logger): Promise<void> {
  const want = sessionTimeouts(config);
  const row = await sessionTimeoutSettings(db);
  if (row.lock === '0' || row.statement === '0') {
    logger.error(
      { lockTimeout: row.lock, statementTimeout: row.statement, wantLockTimeoutMs: want.lockTimeoutMs, wantStatementTimeoutMs: want.statementTimeoutMs },
      "DATABASE_URL is a pooler whose server sessions have no lock_timeout or statement_timeout: set them in its connect_query (deploy/pgbouncer.ini) or as the role's defaults",
    );
  }
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const config = opts.config ?? loadConfig();
  // Secrets without a shape of their own are redacted by value, from every log line and audit row.
  for (const secret of [config.operatorToken, config.marketplace.privateKey, config.marketplace.callbackToken, config.flightStatus.key]) registerSecret(secret);
  const logger = opts.logger ?? makeLogger(config.logLevel);
  const ownDb = !opts.db;
  const knex = opts.db ?? makeKnex(config);
  if (ownDb) await migrate(config, knex);
  // The embedded database writes its files 0666 (it sets the mode itself): made private once it has started, and
  // again at stop; its folders are 0700, which keeps files made in between from other users too.
  const embeddedDir = !config.databaseUrl && !config.dataDir.startsWith('memory://') ? config.dataDir : undefined;
  if (embeddedDir) secureDataDir(embeddedDir);
  const db = new Database(knex, { namedStatements: !config.databasePooled });
  if (config.databasePooled) await checkPooledSessions(db, config, logger);
  await ensureAuditPartitions(db, new Date(), AUDIT_MONTHS_AHEAD + 1);
  const clock = opts.clock ?? systemClock;
  const metrics = new Metrics();
  // REDIS_URL: the anonymous limit is one limit for every instance (this instance's own while Redis is away).
  const shared = config.redisUrl
    ? new SharedAnonymousBuckets(
        config.anonymousLimit,
        { url: config.redisUrl, keyPrefix: config.redisKeyPrefix },
        {
          storeUp: (up) => metrics.rateLimitStoreUp.set({ store: 'redis' }, up ? 1 : 0),
          fellBack: () => metrics.rateLimitFallbacks.inc(),
        },
      )
    : undefined;
  const { url: mpUrl, userId, privateKey } = config.marketplace;
  const marketplace = mpUrl && userId && privateKey ? new HttpMarketplaceClient({ baseUrl: mpUrl, userId, privateKey, clock }) : undefined;
  const deps: Deps = {
    config,
    db,
    clock,
    logger,
    lifecycle: { leaving: false, draining: false },
    keys: new KeyCache(),
    recent: new RecentBookingFacts(),
    dataKeys: new DataKeys(isPublicPlaceName),
    marketplaceNotices: marketplaceNoticeBody,
    fleet: new FleetCapacity(clock),
    limits: { anonymous: shared ?? new MemoryTokenBuckets(config.anonymousLimit), emptyPartners: new EmptyBuckets() },
    metrics,
    resolveHost: opts.resolveHost ?? systemResolve,
    orderSource: marketplace && {
      getOrder: async (orderId, o) => {
        const { body, exchange } = await marketplace.getOrder(orderId, o);
        return { order: body.order, exchange };
      },
    },
  };
  const { token, generated } = resolveOperatorToken(config);
  registerSecret(token);
  const { app, opsApp } = await createApp(deps, { operatorToken: token });

  const server = await listen(app, deps, config.port, config.host);
  const port = (server.address() as AddressInfo).port;
  // OPS_LISTEN: the operator API and console on an address of their own (e.g. loopback or a private network).
  let opsServer: http.Server | undefined;
  if (opsApp && config.opsListen) {
    try {
      opsServer = await listen(opsApp, deps, config.opsListen.port, config.opsListen.host);
    } catch (e) {
      server.close();
      throw e;
    }
  }
  const servers = opsServer ? [server, opsServer] : [server];
  const stopRetention = scheduleRetention(deps);
  // Webhooks are delivered whether or not the marketplace is configured; each channel keeps its own retry schedule
  // and runs on a loop of its own: the marketplace's, production webhooks' and sandbox webhooks' never wait for each other.
  const webhookSender = new HttpWebhookSender({ timeoutMs: config.webhooks.timeoutMs, resolve: deps.resolveHost, allowedPorts: config.webhooks.allowedPorts });
  const channels = [
    ...(marketplace ? [marketplaceChannel(marketplace, { baseDelayMs: config.outbox.retryBaseMs })] : []),
    webhookChannel(deps, webhookSender, { env: 'production' }),
    webhookChannel(deps, webhookSender, { env: 'sandbox' }),
  ];
  const stopOutbox = opts.outboxWorker !== false ? startOutboxWorker(deps, channels, { pollMs: config.outbox.pollMs }) : async () => {};
  const { url: flightUrl, key: flightKey, pollMs: flightPollMs } = config.flightStatus;
  const flightStatus = opts.flightStatus ?? (flightUrl ? auditedFlightStatus(deps, flightUrl, flightKey) : undefined);
  const stopFlights = flightStatus && opts.flightPoller !== false ? startFlightPoller(deps, flightStatus, { pollMs: flightPollMs }) : async () => {};
  const holder = `${os.hostname()}:${process.pid}:${port}`;
  // On every instance: the lease in privacy_passes keeps it to one at a time (domain/privacy/retention.ts).
  const stopPrivacy = startPrivacyRetention(deps, {
    holder,
    everyMs: opts.privacyRetentionEveryMs ?? PRIVACY_RETENTION_EVERY_MS,
    observer: metrics.privacyRetention,
  });
  const auto = config.dispatchAuto;
  const stopDispatch =
    (opts.autoDispatch ?? auto.enabled)
      ? startAutoDispatch(deps, {
          holder,
          aheadHours: auto.aheadHours,
          lockHours: config.dispatchLockHours,
          everyMs: auto.pollMs,
          onPlanned: (_plan, _applied, seconds) => deps.metrics.observePlan(seconds),
        })
      : async () => {};
  let stopping: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    opsUrl: opsServer ? `http://${urlHost(config.opsListen!.host)}:${(opsServer.address() as AddressInfo).port}` : `http://127.0.0.1:${port}`,
    deps,
    operatorToken: token,
    operatorTokenGenerated: generated,
    server,
    stop: () =>
      (stopping ??= (async () => {
        stopRetention();
        // First out of the load balancer: readiness answers 503 while requests are still served, until its health
        // checks have seen it (DRAIN_DELAY_MS; deploy/haproxy.cfg checks every second, out after two failures).
        if (config.drainDelayMs > 0) {
          deps.lifecycle.leaving = true;
          await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
        }
        // Requests already running finish; a request arriving on an open connection meanwhile is refused cleanly
        // (503, Retry-After, Connection: close); new connections are refused by the closed listener.
        deps.lifecycle.draining = true;
        await Promise.all(
          servers.map(
            (srv) =>
              new Promise<void>((resolve) => {
                srv.close(() => resolve());
                srv.closeIdleConnections();
              }),
          ),
        );
        await stopOutbox();
        await stopFlights();
        await stopDispatch();
        await stopPrivacy();
        await shared?.close();
        if (ownDb) await db.destroy();
        if (embeddedDir) secureDataDir(embeddedDir);
      })()),
  };
}

/** The flight-status provider at `url`, every lookup audited (surface `flights`), as every call we make is. */
export function auditedFlightStatus(deps: Pick<Deps, 'db' | 'dataKeys'>, url: string, key?: string): FlightStatus {
  const onExchange = async (x: OutboundExchange) => void (await appendAudit(deps.db, await exchangeAudit(deps.dataKeys, deps.db, 'flights', x)));
  return createHttpFlightStatus({ url, key, onExchange });
}

async function listen(app: http.RequestListener, deps: Deps, port: number, host: string): Promise<http.Server> {
  const { requestTimeoutMs, headersTimeoutMs, maxConnections } = deps.config;
  // A request's head must arrive within headersTimeoutMs (checked every second, not Node's default 30 s), and its body
  // within requestTimeoutMs after the head: the pipeline keeps that deadline itself so it can answer 408 and close.
  // Node's whole-request timeout is only the backstop behind it.
  const server = http.createServer(
    { requestTimeout: headersTimeoutMs + requestTimeoutMs + 2000, headersTimeout: headersTimeoutMs, connectionsCheckingInterval: 1000 },
    app,
  );
  // Idle keep-alive connections are kept longer than clients and load balancers keep theirs (load balancers commonly
  // idle out at 60 s; undici closes shortly before the advertised timeout, but its timers are coarse), so a client
  // rarely sends a request on a connection the server is closing at that moment: an ECONNRESET the client cannot
  // tell from a crash. Node's default of 5 s raced with clients in tests. When the listener is full, idle ones are
  // closed first (connections.ts).
  server.keepAliveTimeout = 65_000;
  // Connections over the cap are closed as they are accepted.
  server.maxConnections = maxConnections;
  guardConnections(server, deps);
  server.on('clientError', answerUnparsable(deps));
  server.on('connect', answerConnect(deps));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

/** A listening host as a URL's host: the wildcard addresses are reached on loopback; IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
