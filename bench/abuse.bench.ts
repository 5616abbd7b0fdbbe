/**
 * `node dist/bench/abuse.bench.js` (also the last step of `npm run bench`): what an anonymous flood costs the
 * service, with the default limits (20 requests a second per address, bursts of 200), on the embedded database in
 * memory: one client address sends FLOOD_REQUESTS keyless 60 KiB POSTs, 20 at a time, as fast as it can. Prints
 * how many were refused 401 (within the limit) and 429 (over it), how long the flood took, and the database bytes
 * each refused request left behind.
 */
import { loadConfig } from '../src/config/env';
import { startServer } from '../src/server';

export interface AbuseFigures {
  requests: number;
  unauthorized: number;
  limited: number;
  other: number;
  seconds: number;
  bytesPerRequest: number;
}

export async function runAbuseBench(total = Number(process.env.FLOOD_REQUESTS ?? 2000)): Promise<AbuseFigures> {
  const running = await startServer({ config: loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: 'memory://', LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  const size = async () =>
    Number(
      (
        await running.deps.db.query<{ n: string }>(
          `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind in ('r', 'm')`,
        )
      )[0].n,
    );
  try {
    const body = JSON.stringify({ note: 'x'.repeat(60 * 1024 - 20) });
    await fetch(`${running.url}/transfers/v1/ping`);
    const before = await size();
    const counts = { unauthorized: 0, limited: 0, other: 0 };
    const started = process.hrtime.bigint();
    let sent = 0;
    const worker = async () => {
      while (sent < total) {
        sent += 1;
        const r = await fetch(`${running.url}/transfers/v1/quotes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
        await r.arrayBuffer();
        if (r.status === 401) counts.unauthorized += 1;
        else if (r.status === 429) counts.limited += 1;
        else counts.other += 1;
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const grown = (await size()) - before;
    return { requests: total, ...counts, seconds, bytesPerRequest: Math.round(grown / total) };
  } finally {
    await running.stop();
  }
}

if (require.main === module) {
  runAbuseBench().then((f) => {
    console.log(
      `anonymous flood: ${f.requests} keyless 60 KiB POSTs from one address in ${f.seconds.toFixed(1)} s: ${f.unauthorized} × 401, ${f.limited} × 429, ${f.other} other; ${f.bytesPerRequest} bytes of database each`,
    );
  });
}
