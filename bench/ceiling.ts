/**
 * The ceiling of one scenario, in a child process of its own: the database alone doing the writes of one request
 * (bench/scenarios.ts), one statement per request, from a plain driver: a `pg` pool of `connections` connections
 * on PostgreSQL, the PGlite instance itself on the embedded database. `connections` loops run concurrently for a
 * warm-up and then the measured seconds. Forked by bench/http.bench.ts; answers one result over IPC.
 */
import { makeKnex, migrateLatest } from '../src/data/knex';
import { loadConfig } from '../src/config/env';
import { seedGrowth } from './growth';
import { ceilingStatement, type CeilingContext, type ScenarioId } from './scenarios';

export interface CeilingSpec {
  db: { kind: 'postgres'; url: string; schema: string } | { kind: 'embedded'; dir: string };
  scenario: ScenarioId;
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

export interface CeilingResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  statements: number;
}

type Run = (text: string, name: string, values: readonly unknown[]) => Promise<unknown>;
// The plain driver (pg has no bundled types; this is the part used).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Pool } = require('pg') as { Pool: new (config: object) => { query(q: object): Promise<unknown>; end(): Promise<void> } };

async function measure(spec: CeilingSpec): Promise<CeilingResult> {
  const config = loadConfig(
    spec.db.kind === 'postgres'
      ? { DATABASE_URL: spec.db.url, DATABASE_SCHEMA: spec.db.schema, LOG_LEVEL: 'silent' }
      : { DATA_DIR: spec.db.dir, LOG_LEVEL: 'silent' },
  );
  const knex = makeKnex(config);
  await migrateLatest(knex, config.databaseSchema);
  const partnerId = 'ptn_ceiling000000001';
  await knex('partners').insert({ partnerId, name: 'Ceiling', currency: 'USD' }).onConflict('partner_id').ignore();
  await knex('api_keys').insert({ keyId: 'ceilingkey01', partnerId, env: 'production', secretHash: 'x' }).onConflict('key_id').ignore();
  const { authVersion } = await knex('partners').where({ partnerId }).first('auth_version');
  const ctx: CeilingContext = { partnerId, keyId: 'ceilingkey01', authVersion: String(authVersion), offers: [] };
  if (spec.scenario === 'booking') {
    await seedGrowth(
      knex,
      partnerId,
      { audit: 0, quotes: spec.db.kind === 'postgres' ? 8000 : 2500, bookings: 0 },
      undefined,
      `ceil${Date.now().toString(36)}`,
    );
    const rows = (await knex('offers')
      .where({ partnerId })
      .whereNotIn('offerId', knex('bookings').select('offer_id'))
      .select('quote_id', 'offer_id')) as Array<{ quoteId: string; offerId: string }>;
    ctx.offers = rows.map((r) => [r.quoteId, r.offerId]);
  }

  let run: Run;
  let close: () => Promise<void>;
  if (spec.db.kind === 'postgres') {
    await knex.destroy();
    const pool = new Pool({ connectionString: spec.db.url, max: spec.connections, options: `-c search_path=${spec.db.schema}` });
    run = (text, name, values) => pool.query({ name, text, values: values as unknown[] });
    close = () => pool.end();
  } else {
    const pglite = (knex.client as unknown as { pglite: { query(t: string, v: readonly unknown[]): Promise<unknown> } }).pglite;
    run = (text, _name, values) => pglite.query(text, values);
    close = () => knex.destroy();
  }

  const loop = async (until: number, latencies?: number[]) => {
    let n = 0;
    while (Date.now() < until && (spec.scenario !== 'booking' || ctx.offers.length > 0)) {
      const { statement, params } = await ceilingStatement(spec.scenario, ctx);
      const t = process.hrtime.bigint();
      await run(statement.text, statement.name, params);
      latencies?.push(Number(process.hrtime.bigint() - t) / 1e6);
      n += 1;
    }
    return n;
  };
  const warmUntil = Date.now() + spec.warmupSeconds * 1000;
  await Promise.all(Array.from({ length: spec.connections }, () => loop(warmUntil)));
  const latencies: number[] = [];
  const started = Date.now();
  const counts = await Promise.all(Array.from({ length: spec.connections }, () => loop(started + spec.seconds * 1000, latencies)));
  const elapsed = (Date.now() - started) / 1000;
  await close();
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] * 100) / 100;
  const statements = counts.reduce((a, b) => a + b, 0);
  return { requestsPerSec: Math.round((statements / elapsed) * 10) / 10, p50Ms: pct(0.5), p99Ms: pct(0.99), statements };
}

if (require.main === module) {
  process.once('message', (msg: { spec: CeilingSpec }) => {
    measure(msg.spec).then(
      (result) => process.send!({ type: 'result', result }, () => process.disconnect()),
      (err: Error) => process.send!({ type: 'error', message: err.stack ?? String(err) }, () => process.disconnect()),
    );
  });
}
