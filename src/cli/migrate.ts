/**
 * `npm run migrate`: applies the migrations to the database the configuration names (DATABASE_URL, or the
 * embedded database under DATA_DIR; DATABASE_DIRECT_URL when DATABASE_URL is a pooler) and exits. The service also migrates on start; this is for deployments that
 * migrate before rolling out.
 */
import { ConfigError, loadConfig } from '../config/env';
import { makeDirectKnex, migrateLatest } from '../data/knex';

async function main() {
  const config = loadConfig();
  const db = makeDirectKnex(config);
  try {
    const before = await db.migrate.currentVersion().catch(() => 'none');
    await migrateLatest(db, config.databaseSchema);
    const after = await db.migrate.currentVersion();
    console.log(before === after ? `already at ${after}` : `migrated from ${before} to ${after}`);
  } finally {
    await db.destroy();
  }
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
