import { makeKnex, migrateLatest } from '../../src/data/knex';
import type { Config } from '../../src/config/env';
import { migrationsHash } from './pglite-template';

// The plain driver, for a session that holds an advisory lock across statements (pg has no bundled types; this is
// the part used).
interface Session {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('pg') as { Client: new (config: { connectionString: string }) => Session };

/** Any number, the same in every worker: the lock under which one of them makes the template. */
const LOCK = 7_290_001;

let made: Promise<string> | undefined;

/**
 * The migrated database a test's own database on the PostgreSQL server is copied from (`create database … template`
 * takes 0.2 s; running the migrations took 1.6 to 2.2 s, and a pass makes about a hundred databases). Made once
 * per set of migrations, by whichever worker asks first while the others wait on an advisory lock; it is built
 * under another name and renamed when complete, so its name means it is ready.
 */
export function postgresTemplate(server: string, config: (url: string) => Config): Promise<string> {
  made ??= make(server, config);
  return made;
}

async function make(server: string, config: (url: string) => Config): Promise<string> {
  const name = `tpl_${migrationsHash()}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock($1)', [LOCK]);
    const { rows } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (rows.length) return name;
    // One left by a run that stopped while building it.
    const building = `${name}_building`;
    await admin.query(`drop database if exists "${building}" with (force)`);
    await admin.query(`create database "${building}"`);
    const db = makeKnex(config(onDatabase(server, building)));
    await migrateLatest(db).finally(() => db.destroy());
    await admin.query(`alter database "${building}" rename to "${name}"`);
    return name;
  } finally {
    await admin.end();
  }
}

/** The same server's address, for another database. */
export function onDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
