import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { loadConfig, type Config } from '../../src/config/env';
import { makeDirectKnex, makeKnex, migrateLatest } from '../../src/data/knex';
import { migratedTemplate } from './pglite-template';
import { onDatabase, postgresTemplate } from './postgres-template';
import { startServer, type RunningServer } from '../../src/server';
import { ManualClock, type Clock } from '../../src/shared/clock';
import type { Resolve } from '../../src/domain/webhooks/targets';
import type { Logger } from '../../src/shared/logger';

export const OPERATOR_TOKEN = 'op_test_operator_token_0123456789';

/** Which database this run uses: PostgreSQL when DATABASE_URL is set (a fresh schema per test file), else PGlite in memory. */
export const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';

/**
 * TEST_DATABASE_POOLER (scripts/test.js sets it for the integration phase's pass through PgBouncer): the pooler's
 * address, in front of DATABASE_URL's server, in transaction mode. Each file then gets a database of its own (a
 * pooler keeps no search_path), reached through the pooler, with DATABASE_DIRECT_URL for its migrations.
 */
const pooler = process.env.DATABASE_URL ? process.env.TEST_DATABASE_POOLER : undefined;

export interface TestApp extends RunningServer {
  db: Knex;
  clock: Clock;
  schema?: string;
  /** The variables that put another service (or a restart) on this app's database. */
  dbEnv: Record<string, string | undefined>;
  close(): Promise<void>;
}

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: 'memory://',
    OPERATOR_TOKEN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Sandbox-Simulate: slow holds its answer 10 s in service; tests assert the behaviour, not the wait.
    SANDBOX_SLOW_MS: '200',
    // The test clock stands still: the anonymous limit would never refill. Its own tests set it.
    ANON_BURST: '1000000',
    SANDBOX_BURST: '1000000',
    DATABASE_URL: process.env.DATABASE_URL,
    ...overrides,
  });
}

/** A fresh database (PGlite in memory, or a new schema on the PostgreSQL server, or a database behind the pooler), migrated. */
export async function freshDatabase(env: Record<string, string | undefined> = {}): Promise<TestDatabase> {
  if (pooler) return pooledDatabase(pooler, env);
  const schema = process.env.DATABASE_URL ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const config = testConfig({ ...env, DATABASE_SCHEMA: schema });
  const db = makeKnex(config, process.env.DATABASE_URL ? {} : { from: await migratedTemplate(config) });
  await migrateLatest(db, schema);
  return {
    db,
    schema,
    env: { DATABASE_SCHEMA: schema },
    async drop() {
      if (schema) await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    },
  };
}

/**
 * A fresh database of its own on DATABASE_URL's server, copied from the migrated template (the migrations then find
 * nothing to do), that the service reaches through `poolerUrl`.
 */
export async function pooledDatabase(poolerUrl: string, env: Record<string, string | undefined> = {}): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const server = process.env.DATABASE_URL!;
  const template = await postgresTemplate(server, (url) => testConfig({ DATABASE_URL: url }));
  const admin = () => makeKnex(testConfig({ DATABASE_URL: server, DATABASE_POOL_MAX: '1' }));
  const a = admin();
  await a.raw('create database ?? template ??', [name, template]).finally(() => a.destroy());
  const dbEnv = { DATABASE_URL: onDatabase(poolerUrl, name), DATABASE_DIRECT_URL: onDatabase(server, name) };
  const config = testConfig({ ...env, ...dbEnv });
  const direct = makeDirectKnex(config);
  await migrateLatest(direct).finally(() => direct.destroy());
  const db = makeKnex(config);
  return {
    db,
    env: dbEnv,
    async drop() {
      await db.destroy();
      const b = admin();
      // The pooler still holds server connections to it: force ends them.
      await b.raw('drop database if exists ?? with (force)', [name]).finally(() => b.destroy());
    },
  };
}

export interface TestDatabase {
  db: Knex;
  schema?: string;
  /** DATABASE_SCHEMA, or DATABASE_URL and DATABASE_DIRECT_URL: what a service needs to use this database. */
  env: Record<string, string | undefined>;
  drop(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  env?: Record<string, string | undefined>;
  /** Reuse this database (e.g. to restart the service on it); close() then leaves it for the caller to drop. */
  db?: TestDatabase;
  /** Run the background outbox worker: webhooks, and marketplace calls when configured (default true). */
  outboxWorker?: boolean;
  /** How webhook hosts resolve (default: DNS). */
  resolveHost?: Resolve;
  /** A logger of the test's own (e.g. to read the log lines). */
  logger?: Logger;
}

/** The service in-process on a random port against a fresh database (or the one given). */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const database = opts.db ?? (await freshDatabase(opts.env));
  const clock = opts.clock ?? new ManualClock('2026-11-21T08:00:00Z');
  const running = await startServer({
    config: testConfig({ ...database.env, ...opts.env }),
    db: database.db,
    clock,
    outboxWorker: opts.outboxWorker,
    resolveHost: opts.resolveHost,
    logger: opts.logger,
  });
  return {
    ...running,
    db: database.db,
    clock,
    schema: database.schema,
    dbEnv: database.env,
    async close() {
      await running.stop();
      if (!opts.db) await database.drop();
    },
  };
}
