import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFlightSimulator } from './app';

/**
 * `npm run sim:flights`: the flight-status simulator as a process, on the real clock. Configured by env:
 *   FLIGHT_SIM_PORT (4020), FLIGHT_SIM_HOST (127.0.0.1),
 *   FLIGHT_STATUS_KEY (the bearer key lookups must carry, the service's; unset: none is checked).
 */
async function main() {
  const env = (name: string) => (process.env[name] === '' ? undefined : process.env[name]);
  const port = Number(env('FLIGHT_SIM_PORT') ?? 4020);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`FLIGHT_SIM_PORT must be a port number, got ${env('FLIGHT_SIM_PORT')}`);
  const host = env('FLIGHT_SIM_HOST') ?? '127.0.0.1';
  const key = env('FLIGHT_STATUS_KEY');
  const sim = createFlightSimulator({ key });
  const server = http.createServer(sim.app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  console.log(
    [
      `Flight status simulator listening on ${url}`,
      `  provider API: GET ${url}/flights/{number}?date=YYYY-MM-DD&arrival=CMB   (point the service's FLIGHT_STATUS_URL at ${url})`,
      `  bearer key:   ${key ? 'required (FLIGHT_STATUS_KEY)' : "none checked (set FLIGHT_STATUS_KEY to require the service's key)"}`,
      `  controls:     POST/GET/DELETE ${url}/_scenarios, GET ${url}/_requests`,
    ].join('\n'),
  );
  const shutdown = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
