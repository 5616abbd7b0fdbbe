import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import type { Knex } from 'knex';
import { loadConfig, type Config } from './config/env';
import { makeKnex, migrateLatest } from './data/knex';
import { createApp } from './http/app';
import { makeLogger, type Logger } from './shared/logger';
import { systemClock, type Clock } from './shared/clock';
import { keySecret } from './shared/ids';
import type { Deps } from './deps';
import { scheduleRetention } from './retention';

export interface StartOptions {
  config?: Config;
  clock?: Clock;
  logger?: Logger;
  /** An existing knex (tests share one per file); otherwise one is made from the config. */
  db?: Knex;
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
  const db = opts.db ?? makeKnex(config);
  if (ownDb) await migrateLatest(db, config.databaseSchema);
  const deps: Deps = { config, db, clock: opts.clock ?? systemClock, logger };
  const { token, generated } = resolveOperatorToken(config);
  const { app } = await createApp(deps, { operatorToken: token });

  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const stopRetention = scheduleRetention(deps);
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
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        if (ownDb) await db.destroy();
      })()),
  };
}
