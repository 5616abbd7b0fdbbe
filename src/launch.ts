import type { Config } from './config/env';
import { startServer, type RunningServer } from './server';
import { ensureDemoPartner } from './domain/partners/demo-partner';
import { firstRide, seedDemoDay, type FirstRide } from './domain/partners/demo-day';
import { autoDispatchOnce } from './domain/dispatch/auto-dispatch';
import type { Clock } from './shared/clock';
import type { Logger } from './shared/logger';
import { formatLocal } from './domain/kernel/sri-lanka-time';

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
export async function launch(config: Config, logger: Logger, opts: { clock?: Clock } = {}): Promise<Launched> {
  const production = config.nodeEnv === 'production';
  const running = await startServer({ config, logger, ...opts });
  if (production && !config.opsListen) {
    logger.warn(
      { port: running.port },
      'the operator API, its console and /metrics are served on the public port: set OPS_LISTEN (e.g. 127.0.0.1:3001, or a private address) to move them to a listener of their own',
    );
  }
  const demo = production ? null : await ensureDemoPartner(running.deps.db, { withFleet: !config.databaseUrl, now: running.deps.clock.now() });
  // A demo day that cannot be made (a place renamed in the gazetteer, say) must not stop the service from starting.
  const day = demo?.fleet
    ? await demoDay(running, demo.partner_id).catch((err: unknown) => {
        logger.warn({ err }, 'the demo day could not be booked; the board starts empty');
        return null;
      })
    : null;
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
  if (day) lines.push(...demoDayLines(day, config, opsBase, base));
  return { running, banner: `${lines.join('\n')}\n`, demoKey: demo?.key };
}

/**
 * The embedded demo's first day: its production bookings, dispatched by the automatic pass when it is on (as it is
 * by default for the embedded demo), and the soonest ride with its driver's token.
 */
async function demoDay(running: RunningServer, partnerId: string) {
  const { deps } = running;
  const now = deps.clock.now();
  const booked = await seedDemoDay(
    {
      db: deps.db,
      fx: deps.config.fxFromUsd,
      fleet: deps.fleet,
      recent: deps.recent,
      emergencyPhone: deps.config.emergencyPhone,
      publicBaseUrl: deps.config.publicBaseUrl,
    },
    partnerId,
    now,
  );
  const auto = deps.config.dispatchAuto;
  if (auto.enabled) await autoDispatchOnce(deps, { holder: 'demo', aheadHours: Math.max(auto.aheadHours, 48), lockHours: deps.config.dispatchLockHours });
  return { booked: booked.length, ride: auto.enabled ? await firstRide(deps.db, booked, now) : null };
}

function demoDayLines(day: { booked: number; ride: FirstRide | null }, config: Config, opsBase: string, base: string): string[] {
  const lines = [`  Demo day: ${day.booked} production bookings of the demo partner for today and tomorrow, on the board: ${opsBase}/ops/`];
  if (!config.dispatchAuto.enabled) return [...lines, '    DISPATCH_AUTO is off: press "Plan the day" on the board, then "Apply all", to dispatch them.'];
  if (!day.ride) return [...lines, '    The automatic pass dispatched what it could; no ride can be driven yet (see the board).'];
  const { booking: b, driver, plate, token } = day.ride;
  return [
    ...lines,
    `    Drive the first ride now: ${driver} (${plate}), ${b.pickup.name} → ${b.dropoff.name} at ${formatLocal(b.pickupAt).slice(11, 16)}.`,
    `    Driver app: ${base}/driver/ with the driver's token: ${token}`,
    `    The traveller's tracking page: ${b.trackingUrl}`,
  ];
}
