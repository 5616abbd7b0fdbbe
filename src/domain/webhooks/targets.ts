import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalidRequest } from '../../shared/errors';

/**
 * Where webhooks may go. Production endpoints: `https` URLs whose host resolves to public (unicast) addresses only.
 * Sandbox endpoints may also be `http`, and where the deployment allows it (config.webhooks.allowPrivateTargets:
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS, by default on outside NODE_ENV=production) also reach private, loopback and
 * unique-local addresses. Link-local (cloud metadata at 169.254.169.254), unspecified, multicast, broadcast and
 * reserved addresses are refused for everyone. The same check runs at registration and at every delivery, where the
 * connection goes to the address checked (see guardedLookup), so a name re-pointed at an internal address after
 * registration (DNS rebinding) reaches nothing.
 *
 * Ports: in production a public address is reached on 443, 80 and the ports the operator allows
 * (config.webhooks.allowedPorts: WEBHOOKS_ALLOWED_PORTS), so partners cannot make the service probe other ports of
 * other hosts (delivery errors are theirs to read). Checked with the addresses, at registration and at every
 * delivery; private targets the deployment allows keep any port, as everything does outside production.
 */
export type Env = 'sandbox' | 'production';

/** A hostname's addresses (dns.lookup with all: true; tests inject their own). */
export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** The ranges WEBHOOKS_ALLOW_PRIVATE_TARGETS opens to sandbox endpoints. */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);

/** Private targets are allowed for sandbox endpoints only, and only where the deployment allows them (config.webhooks.allowPrivateTargets). */
export const privateAllowed = (env: Env, allowPrivateTargets: boolean): boolean => env === 'sandbox' && allowPrivateTargets;

/** Why `address` may not receive webhooks, or null when it may. IPv4-mapped IPv6 addresses count as their IPv4. */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  let range: string;
  try {
    range = ipaddr.process(address).range();
  } catch {
    return `${address} is not an IP address`;
  }
  if (range === 'unicast' || (allowPrivate && PRIVATE_RANGES.has(range))) return null;
  return `${address} is not a public address (${range})`;
}

/** The ports public targets may use (config.webhooks.allowedPorts); null: any. */
export type AllowedPorts = readonly number[] | null;

/** The port a URL reaches: its own, or its scheme's. */
export const targetPort = (u: URL): number => Number(u.port) || (u.protocol === 'https:' ? 443 : 80);

/** Why `address` may not be reached on `port`, or null: only public addresses are held to the allowed ports. */
export function refusedPort(address: string, port: number, allowed: AllowedPorts): string | null {
  if (!allowed || allowed.includes(port)) return null;
  try {
    if (ipaddr.process(address).range() !== 'unicast') return null;
  } catch {
    return null; // not an address: refusedAddress says why
  }
  return `port ${port} is not open to webhooks on a public address (allowed: ${allowed.join(', ')})`;
}

/** The host of a URL as an IP literal (IPv6 without its brackets), or null for a name. */
export function literalAddress(u: URL): string | null {
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return net.isIP(host) ? host : null;
}

/** Every address `host` has, or why it may not receive webhooks (on the URL's port, when `allowedPorts` limits them). */
export async function checkHost(
  u: URL,
  allowPrivate: boolean,
  resolve: Resolve,
  allowedPorts: AllowedPorts = null,
): Promise<{ ok: true; addresses: string[] } | { ok: false; reason: string; port?: true }> {
  const literal = literalAddress(u);
  let addresses: string[];
  if (literal) addresses = [literal];
  else {
    try {
      addresses = (await resolve(u.hostname)).map((a) => a.address);
    } catch {
      addresses = [];
    }
    if (!addresses.length) return { ok: false, reason: `${u.hostname} does not resolve` };
  }
  // Every address must pass: a name with one public and one internal address could be steered to the internal one.
  for (const a of addresses) {
    const refused = refusedAddress(a, allowPrivate);
    if (refused) return { ok: false, reason: literal ? refused : `${u.hostname} resolves to ${refused}` };
  }
  for (const a of addresses) {
    const refused = refusedPort(a, targetPort(u), allowedPorts);
    if (refused) return { ok: false, reason: refused, port: true };
  }
  return { ok: true, addresses };
}

const refuse = (message: string) => invalidRequest(`The request is invalid: url ${message}.`, [{ field: 'url', message }]);

/** Checks an endpoint URL at registration; returns it normalised, or throws 400 invalid_request naming `url`. */
export async function checkTargetUrl(
  raw: string,
  env: Env,
  allowPrivateTargets: boolean,
  resolve: Resolve,
  allowedPorts: AllowedPorts = null,
): Promise<string> {
  if (!URL.canParse(raw)) throw refuse('is not a valid URL');
  const u = new URL(raw);
  if (env === 'production' && u.protocol !== 'https:') throw refuse('must be an https URL for a production endpoint');
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw refuse('must be an http or https URL');
  if (u.username || u.password) throw refuse('must not carry credentials (verify our signature instead)');
  if (u.hash) throw refuse('must not have a fragment');
  const host = await checkHost(u, privateAllowed(env, allowPrivateTargets), resolve, allowedPorts);
  if (!host.ok) {
    if (host.port) throw refuse(`must use an allowed port: ${host.reason}`);
    // A sandbox endpoint the deployment's setting would let through: say which setting, for whoever runs it.
    const settingWouldAllow = env === 'sandbox' && !allowPrivateTargets && (await checkHost(u, true, resolve)).ok;
    const setting = settingWouldAllow ? '; the setting WEBHOOKS_ALLOW_PRIVATE_TARGETS=true lets sandbox endpoints reach private and loopback addresses' : '';
    throw refuse(`must reach a public address: ${host.reason}${setting}`);
  }
  return u.href;
}

/**
 * A `lookup` for http(s) requests: resolves with `resolve`, refuses the connection unless every address passes the
 * check, and hands the checked addresses to the socket, so the connection goes where the check looked, never to a
 * fresh resolution. (Node calls it with `all: true` when it races IPv4 and IPv6, and without otherwise.)
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolve, port?: { port: number; allowed: AllowedPorts }): net.LookupFunction {
  return (hostname, options, callback) => {
    const fail = (message: string, code: string) => callback(Object.assign(new Error(message), { code }), '');
    const family = typeof options === 'number' ? options : (options?.family ?? 0);
    resolve(hostname).then(
      (found) => {
        const addresses = found.filter((a) => !family || a.family === family);
        if (!addresses.length) return fail(`${hostname} does not resolve`, 'ENOTFOUND');
        for (const a of addresses) {
          const refused = refusedAddress(a.address, allowPrivate);
          if (refused) return fail(`refused: ${hostname} resolves to ${refused}`, 'EREFUSEDTARGET');
          const closed = port && refusedPort(a.address, port.port, port.allowed);
          if (closed) return fail(`refused: ${hostname} resolves to ${a.address}: ${closed}`, 'EREFUSEDTARGET');
        }
        if (typeof options === 'object' && options?.all) return callback(null, addresses);
        return callback(null, addresses[0].address, addresses[0].family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), ''),
    );
  };
}
