import fs from 'node:fs';
import path from 'node:path';
import { knex, type Knex } from 'knex';
import type * as PgliteModule from '@electric-sql/pglite';
import type * as BtreeGist from '@electric-sql/pglite/dist/contrib/btree_gist';
import type ClientPgLiteClass from 'knex-pglite';
import { knexSnakeCaseMappers } from 'objection';
import type { Config } from '../config/env';
import { parseTimestamptz } from './timestamps';

const MIGRATIONS_DIR = path.join(__dirname, '../../migrations');

export type Db = Knex;

/** How an embedded database starts (tests: from a migrated copy, which is faster than running the migrations). */
export interface EmbeddedStart {
  /** A data directory dumped by PGlite's dumpDataDir, loaded instead of starting empty. */
  from?: Blob;
  /** Receives the PGlite instance (to dump it). */
  made?: (pglite: PgliteModule.PGlite) => void;
}

/**
 * An in-memory database's files are memory already, and PGlite is one session: PostgreSQL's default shared memory
 * (a 128 MB buffer pool, locks for 100 connections) would only copy them, and it is zeroed at every start, which cost
 * 0.5 s of CPU per start (tests start one per file). 16 MB of buffers and room for a few sessions are plenty.
 */
const IN_MEMORY_SETTINGS = ['-c', 'shared_buffers=16MB', '-c', 'max_connections=4'];

/** The timeouts every database session needs: the row-lock wait (55P03 after it) and the longest statement (57014). */
export const sessionTimeouts = (config: Partial<Pick<Config, 'idempotencyWaitMs' | 'databaseStatementTimeoutMs'>>) => ({
  lockTimeoutMs: config.idempotencyWaitMs ?? 5000,
  statementTimeoutMs: config.databaseStatementTimeoutMs ?? 15000,
});

/**
 * The connection for migrations and other work that needs a session of its own: DATABASE_DIRECT_URL when the
 * service connects through a pooler, else the same database as makeKnex's. The caller destroys it.
 */
export function makeDirectKnex(config: Parameters<typeof makeKnex>[0] & Partial<Pick<Config, 'databaseDirectUrl'>>, embedded: EmbeddedStart = {}): Knex {
  if (!config.databasePooled || !config.databaseDirectUrl) return makeKnex(config, embedded);
  return makeKnex({ ...config, databaseUrl: config.databaseDirectUrl, databasePooled: false, databasePoolMax: 1 });
}

/**
 * A real PostgreSQL server when DATABASE_URL is set; otherwise an embedded PGlite stored under DATA_DIR/pglite
 * (or in memory when DATA_DIR is "memory://"). PGlite has one connection: every query made while a transaction is
 * open must use that transaction, or it waits for the connection forever.
 */
export function makeKnex(
  config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'databasePoolMax' | 'dataDir'> &
    Partial<Pick<Config, 'idempotencyWaitMs' | 'databaseStatementTimeoutMs' | 'databasePooled'>>,
  embedded: EmbeddedStart = {},
): Knex {
  // Every session waits at most this long for a row lock (then 55P03) and runs no statement longer (then 57014).
  // Behind a transaction pooler a session's SET would land on whichever server session served it: there the
  // pooler sets them on each server connection (deploy/pgbouncer.ini's connect_query), and the start checks them.
  const { lockTimeoutMs, statementTimeoutMs } = sessionTimeouts(config);
  const session = config.databasePooled ? undefined : `set lock_timeout = ${lockTimeoutMs}; set statement_timeout = ${statementTimeoutMs}`;
  const common: Partial<Knex.Config> = {
    ...knexSnakeCaseMappers(),
    migrations: {
      directory: MIGRATIONS_DIR,
      loadExtensions: ['.js', '.ts'],
      ...(config.databaseSchema ? { schemaName: config.databaseSchema } : {}),
      // A rolling upgrade: the release still serving (or restarting) finds migrations of the next one already applied.
      // They only expand the schema (docs/operations.md#rolling-upgrades-expand-then-contract), so it runs on: knex
      // would otherwise refuse to start ("corrupt migration directory"). Its own missing migrations still apply.
      disableMigrationsListValidation: true,
    },
    acquireConnectionTimeout: 30_000,
  };
  if (config.databaseUrl) {
    return knex({
      ...common,
      client: 'pg',
      connection: config.databaseUrl,
      searchPath: config.databaseSchema ? [config.databaseSchema] : undefined,
      pool: {
        min: 0,
        max: config.databasePoolMax,
        afterCreate: (conn: { query(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) =>
          session ? conn.query(session, (err) => done(err, conn)) : done(null, conn),
      },
    });
  }
  // Loaded lazily (require, not import): the pg path must not pay for the WASM build. Their types come from the
  // type-only imports above, which load nothing.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { PGlite, types } = require('@electric-sql/pglite') as typeof PgliteModule;
  const { btree_gist } = require('@electric-sql/pglite/contrib/btree_gist') as typeof BtreeGist;
  const ClientPgLite = require('knex-pglite') as typeof ClientPgLiteClass;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const inMemory = config.dataDir.startsWith('memory://');
  const dir = inMemory ? undefined : path.join(config.dataDir, 'pglite');
  if (dir) secureDataDir(config.dataDir);
  // int8 as string, and timestamptz read exactly (timestamps.ts), like pg, so both backends return the same values.
  // The options-object form: `new PGlite(undefined, opts)` drops the extensions.
  const parsers = { [types.INT8]: (v: string) => v, [types.TIMESTAMPTZ]: parseTimestamptz };
  const pglite = new PGlite({
    dataDir: dir,
    parsers,
    extensions: { btree_gist },
    ...(inMemory ? { startParams: [...PGlite.defaultStartParams, ...IN_MEMORY_SETTINGS] } : {}),
    ...(embedded.from ? { loadDataDir: embedded.from } : {}),
  });
  embedded.made?.(pglite);
  return knex({
    ...common,
    client: ClientPgLite,
    dialect: 'postgres',
    connection: () => ({ pglite }),
  } as Knex.Config);
}

/**
 * The data directory holds key hashes, webhook secrets and passenger data: private to the service's user (folders
 * 0700, files 0600), whatever the umask, including what an earlier version left readable. Files the process makes
 * itself are made under a umask of 077 from here on; the embedded database sets 0666 on its own, so the server
 * runs this again once it has started and at stop (the 0700 folders keep the files made in between private).
 */
export function secureDataDir(dataDir: string): void {
  process.umask(0o077);
  fs.mkdirSync(path.join(dataDir, 'pglite'), { recursive: true, mode: 0o700 });
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== 0o700) fs.chmodSync(p, 0o700);
      for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    } else if ((st.mode & 0o077) !== 0) fs.chmodSync(p, st.mode & 0o700);
  };
  walk(dataDir);
}

/** The migrations this build knows: the database is current when it has run them all. */
export function knownMigrations(): string[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.replace(/\.(ts|js)$/, ''));
}

export async function migrateLatest(db: Knex, schema?: string): Promise<void> {
  if (schema) await db.raw('create schema if not exists ??', [schema]);
  await db.migrate.latest();
}
