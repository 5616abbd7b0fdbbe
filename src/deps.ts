import type { Knex } from 'knex';
import type { Config } from './config/env';
import type { Clock } from './shared/clock';
import type { Logger } from './shared/logger';

/** What the composition root (server.ts) hands to every surface and use case. */
export interface Deps {
  config: Config;
  db: Knex;
  clock: Clock;
  logger: Logger;
}
