import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { loadConfig, type Config } from '../../src/config/env';
import { makeKnex, migrateLatest } from '../../src/data/knex';
import { startServer, type RunningServer } from '../../src/server';
import { ManualClock, type Clock } from '../../src/shared/clock';

export const OPERATOR_TOKEN = 'op_test_operator_token_0123456789';

/** Which database this run uses: PostgreSQL when DATABASE_URL is set (a fresh schema per test file), else PGlite in memory. */
export const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';

export interface TestApp extends RunningServer {
  db: Knex;
  clock: Clock;
  schema?: string;
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
    DATABASE_URL: process.env.DATABASE_URL,
    ...overrides,
  });
}

/** A fresh database (PGlite in memory, or a new schema on the PostgreSQL server), migrated. */
export async function freshDatabase(): Promise<{ db: Knex; schema?: string; drop(): Promise<void> }> {
  const schema = process.env.DATABASE_URL ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const config = testConfig({ DATABASE_SCHEMA: schema });
  const db = makeKnex(config);
  await migrateLatest(db, schema);
  return {
    db,
    schema,
    async drop() {
      if (schema) await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    },
  };
}

/** The service in-process on a random port against a fresh database. */
export async function startTestApp(opts: { clock?: Clock; env?: Record<string, string | undefined> } = {}): Promise<TestApp> {
  const fresh = await freshDatabase();
  const clock = opts.clock ?? new ManualClock('2026-11-21T08:00:00Z');
  const running = await startServer({ config: testConfig({ DATABASE_SCHEMA: fresh.schema, ...opts.env }), db: fresh.db, clock });
  return {
    ...running,
    db: fresh.db,
    clock,
    schema: fresh.schema,
    async close() {
      await running.stop();
      await fresh.drop();
    },
  };
}
