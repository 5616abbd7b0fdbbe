import { ConfigError, loadConfig } from './config/env';
import { launch } from './launch';
import { writeListening } from './cli/listening';
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
  // A bug that escaped every handler leaves the process in an unknown state: log it (redacted) and exit, so the
  // supervisor starts a clean one. Nothing is lost: every change commits with its audit row, or not at all.
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled rejection');
    process.exit(1);
  });
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });
  const { running, banner } = await launch(config, logger);
  console.log(banner);
  // Outside production, where this service listens, for the operator CLI and certify run in another shell without
  // its PORT: DATA_DIR/listening.json, removed when the process exits (src/cli/listening.ts).
  if (config.nodeEnv !== 'production' && !config.dataDir.startsWith('memory://')) {
    try {
      process.on('exit', writeListening(config.dataDir, running));
    } catch (err) {
      logger.warn({ err }, 'could not write listening.json: the operator CLI and certify need --base-url or PORT');
    }
  }

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
