import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import type { Knex } from 'knex';
import { loadConfig, type Config } from './config/env';
import { makeKnex, migrateLatest } from './data/knex';
import { createApp } from './http/app';
import { answerUnparsable } from './http/client-error';
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
import { startOutboxWorker } from './domain/outbox/worker';
import { HttpMarketplaceClient } from './adapters/marketplace/http-marketplace-client';

export interface StartOptions {
  config?: Config;
  clock?: Clock;
  logger?: Logger;
  /** An existing knex (tests share one per file); otherwise one is made from the config. */
  db?: Knex;
  /** Deliver the marketplace outbox in the background when the marketplace is configured (default true). */
  outboxWorker?: boolean;
}

export interface RunningServer {
  port: number;
  url: string;
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

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const config = opts.config ?? loadConfig();
  const logger = opts.logger ?? makeLogger(config.logLevel);
  const ownDb = !opts.db;
  const knex = opts.db ?? makeKnex(config);
  if (ownDb) await migrateLatest(knex, config.databaseSchema);
  const db = new Database(knex);
  await ensureAuditPartitions(db, new Date(), AUDIT_MONTHS_AHEAD + 1);
  const clock = opts.clock ?? systemClock;
  const { url: mpUrl, userId, privateKey } = config.marketplace;
  const marketplace = mpUrl && userId && privateKey ? new HttpMarketplaceClient({ baseUrl: mpUrl, userId, privateKey, clock }) : undefined;
  const deps: Deps = {
    config,
    db,
    clock,
    logger,
    lifecycle: { draining: false },
    keys: new KeyCache(),
    recent: new RecentBookingFacts(),
    fleet: new FleetCapacity(),
    orderSource: marketplace && {
      getOrder: async (orderId, o) => {
        const { body, exchange } = await marketplace.getOrder(orderId, o);
        return { order: body.order, exchange };
      },
    },
  };
  const { token, generated } = resolveOperatorToken(config);
  const { app } = await createApp(deps, { operatorToken: token });

  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerUnparsable(deps));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const stopRetention = scheduleRetention(deps);
  const stopOutbox =
    opts.outboxWorker !== false && marketplace
      ? startOutboxWorker(deps, marketplace, { pollMs: config.outbox.pollMs, baseDelayMs: config.outbox.retryBaseMs })
      : async () => {};
  let stopping: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    deps,
    operatorToken: token,
    operatorTokenGenerated: generated,
    server,
    stop: () =>
      (stopping ??= (async () => {
        stopRetention();
        // Requests already running finish; a request arriving on an open connection meanwhile is refused cleanly
        // (503, Retry-After, Connection: close); new connections are refused by the closed listener.
        deps.lifecycle.draining = true;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await stopOutbox();
        if (ownDb) await db.destroy();
      })()),
  };
}
