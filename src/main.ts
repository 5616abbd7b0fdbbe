import { ConfigError, loadConfig } from './config/env';
import { startServer } from './server';
import { ensureDemoPartner } from './domain/partners/demo-partner';
import { makeLogger } from './shared/logger';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(78);
    }
    throw e;
  }
  const logger = makeLogger(config.logLevel);
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled rejection');
    process.exit(1);
  });
  const running = await startServer({ config, logger });
  const demo = await ensureDemoPartner(running.deps.db);
  const base = config.publicBaseUrl;
  const lines = [
    '',
    `Lanka Transfers API listening on port ${running.port} (${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`})`,
    `  Transfers API: ${base}/transfers/v1   Operator API: ${base}/ops/v1`,
  ];
  if (running.operatorTokenGenerated) lines.push(`  Operator token (generated, kept in ${config.dataDir}/operator-token): ${running.operatorToken}`);
  else lines.push(`  Operator token: ${config.operatorToken ? 'from OPERATOR_TOKEN' : `in ${config.dataDir}/operator-token`}`);
  if (demo) {
    lines.push(
      `  Demo partner "${demo.name}" (${demo.partner_id}) created with a sandbox key, shown this once:`,
      `    ${demo.key}`,
      '  Try it:',
      `    curl -s ${base}/transfers/v1/ping -H "Authorization: Bearer ${demo.key}"`,
    );
  }
  console.log(lines.join('\n') + '\n');

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'draining and shutting down');
    running.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
