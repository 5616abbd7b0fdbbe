import { startMarketplaceSim } from './app';

/**
 * `npm run sim:marketplace`: the marketplace simulator as a process. Configured by env:
 *   SIM_PORT (4010), SIM_HOST (127.0.0.1), SIM_PUBLIC_URL (the URL callers address it by, if not its own),
 *   MARKETPLACE_USER_ID (1001), MARKETPLACE_PRIVATE_KEY,
 *   SUPPLIER_IN_URL (the service's MARKETPLACE_IN_URL), SUPPLIER_BASE_URL (where to send; default SUPPLIER_IN_URL),
 *   MARKETPLACE_CALLBACK_TOKEN.
 */
const DEV_KEY = 'sim-dev-private-key';

async function main() {
  const env = (name: string) => (process.env[name] === '' ? undefined : process.env[name]);
  const port = Number(env('SIM_PORT') ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`SIM_PORT must be a port number, got ${env('SIM_PORT')}`);
  const userId = env('MARKETPLACE_USER_ID') ?? '1001';
  const privateKey = env('MARKETPLACE_PRIVATE_KEY') ?? DEV_KEY;
  const inUrl = env('SUPPLIER_IN_URL');
  const running = await startMarketplaceSim({
    port,
    host: env('SIM_HOST') ?? '127.0.0.1',
    userId,
    privateKey,
    publicUrl: env('SIM_PUBLIC_URL'),
    supplier: inUrl ? { inUrl, baseUrl: env('SUPPLIER_BASE_URL'), callbackToken: env('MARKETPLACE_CALLBACK_TOKEN') } : undefined,
  });
  const base = env('SIM_PUBLIC_URL') ?? running.url;
  console.log(
    [
      `Marketplace simulator listening on ${running.url}`,
      `  apiin API:  ${base}/apiin/${userId}/   (point the service's MARKETPLACE_URL at ${base})`,
      `  signing key: ${privateKey === DEV_KEY ? `${DEV_KEY} (default; set MARKETPLACE_PRIVATE_KEY to the service's key)` : 'from MARKETPLACE_PRIVATE_KEY'}`,
      `  controls:   ${running.url}/__sim  (scenarios, calls, orders, reset, drive/*)`,
      inUrl
        ? `  drives:     ${env('SUPPLIER_BASE_URL') ?? inUrl} (signed as ${inUrl})${env('MARKETPLACE_CALLBACK_TOKEN') ? '' : '; callbacks disabled: no MARKETPLACE_CALLBACK_TOKEN'}`
        : "  drives:     off (set SUPPLIER_IN_URL to the service's MARKETPLACE_IN_URL)",
    ].join('\n'),
  );
  const shutdown = () => running.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
