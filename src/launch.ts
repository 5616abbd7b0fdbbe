import type { Config } from './config/env';
import { startServer, type RunningServer } from './server';
import { ensureDemoPartner } from './domain/partners/demo-partner';
import type { Logger } from './shared/logger';

export interface Launched {
  running: RunningServer;
  /** What `npm start` prints: where the API is, the operator token, and on a first start the demo key and a curl. */
  banner: string;
  demoKey?: string;
}

/**
 * Starts the service as `npm start` does: migrations, surfaces, and (not in production) on an empty database a
 * sandbox demo partner. In production the start is quiet: no demo partner or fleet, no secret printed, and a warning
 * when the operator surface shares the public port.
 */
export async function launch(config: Config, logger: Logger): Promise<Launched> {
  const production = config.nodeEnv === 'production';
  const running = await startServer({ config, logger });
  if (production && !config.opsListen) {
    logger.warn(
      { port: running.port },
      'the operator API, its console and /metrics are served on the public port: set OPS_LISTEN (e.g. 127.0.0.1:3001, or a private address) to move them to a listener of their own',
    );
  }
  const demo = production ? null : await ensureDemoPartner(running.deps.db, { withFleet: !config.databaseUrl, now: running.deps.clock.now() });
  const base = config.publicBaseUrl;
  // With OPS_LISTEN the operator surface is only on its own address (not on PUBLIC_BASE_URL).
  const opsBase = config.opsListen ? running.opsUrl : base;
  const lines = [
    '',
    `Lanka Transfers API listening on port ${running.port} (${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`})`,
    `  Transfers API: ${base}/transfers/v1   Marketplace: ${config.marketplace.inUrl}`,
    `  Reference console (sandbox keys only): ${base}/transfers/v1/console`,
    `  Operator API: ${opsBase}/ops/v1   Operator console: ${opsBase}/ops/${config.opsListen ? '   (OPS_LISTEN: not on the main port)' : ''}`,
    `  Driver app: ${base}/driver/ (a driver signs in with a token: npm run --silent operator -- driver token <driver_id>)`,
  ];
  if (running.operatorTokenGenerated) lines.push(`  Operator token (generated, kept in ${config.dataDir}/operator-token): ${running.operatorToken}`);
  else lines.push(`  Operator token: ${config.operatorToken ? 'from OPERATOR_TOKEN' : `in ${config.dataDir}/operator-token`}`);
  if (demo) {
    lines.push(
      `  Demo partner "${demo.name}" (${demo.partner_id}) created with a sandbox key, shown this once:`,
      `    ${demo.key}`,
      '  Try it: paste the key into the reference console, or',
      `    curl -s ${base}/transfers/v1/ping -H "Authorization: Bearer ${demo.key}"`,
    );
    if (demo.fleet) lines.push(`  Demo fleet: ${demo.fleet.vehicles} vehicles and ${demo.fleet.drivers} drivers (npm run --silent operator -- vehicle list)`);
  }
  return { running, banner: `${lines.join('\n')}\n`, demoKey: demo?.key };
}
