import type { IncomingMessage, ServerResponse } from 'node:http';
import { knownMigrations } from '../data/knex';
import { databaseReady, operationalFigures } from '../data/repositories/health-repository';
import type { Deps } from '../deps';
import type { OperationalSample } from './metrics';

/** A readiness answer is reused this long: a flood of probes costs at most one query a second. */
const READY_CACHE_MS = 1000;

/**
 * Readiness: the database answers and has run every migration this build knows, and the instance is not shutting
 * down. Probes and scrapes share one cached answer.
 */
export function readiness(deps: Deps): () => Promise<boolean> {
  const known = knownMigrations();
  let cached: { at: number; ready: Promise<boolean> } | undefined;
  return () => {
    if (deps.lifecycle.leaving || deps.lifecycle.draining) return Promise.resolve(false);
    const now = deps.clock.now().getTime();
    if (!cached || now - cached.at > READY_CACHE_MS) cached = { at: now, ready: databaseReady(deps.db, known) };
    return cached.ready;
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

/**
 * `GET /healthz` (the process is up and serving) and `GET /readyz` (ready for traffic, else 503), on every listener.
 * They take no token and are left out of the audit log: a load balancer asks every few seconds, and a row per ask
 * would bury the requests that matter; they show no data and change nothing. Anything else goes on to the surfaces.
 */
export function probes(deps: Deps, ready: () => Promise<boolean>) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.url === '/healthz') return answer(res, 200, { status: 'ok' });
    if (req.url !== '/readyz') return next();
    ready().then(
      (ok) => answer(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not_ready' }),
      () => answer(res, 503, { status: 'not_ready' }),
    );
  };
}

/** What one scrape reads: the database's figures and readiness, and the connection pool. */
export function operationalSample(deps: Deps, ready: () => Promise<boolean>): () => Promise<OperationalSample> {
  return async () => {
    const [figures, ok] = await Promise.all([operationalFigures(deps.db, deps.clock.now()).catch(() => undefined), ready()]);
    return {
      figures,
      ready: ok && figures !== undefined,
      pool: deps.db.poolFigures(),
    };
  };
}
