/** Settings whose text needs more than a schema: the proxy to trust, and an address to listen on. */

/**
 * TRUST_PROXY as Express's `trust proxy` setting: false (unset: the socket's peer is the client), a hop count, or a
 * list of trusted proxy addresses and ranges. undefined when the value is not one of those.
 */
export function parseTrustProxy(value: string | undefined): false | number | string[] | undefined {
  if (value === undefined || value === '' || value === 'false') return false;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const ok = parts.length > 0 && parts.every((p) => ['loopback', 'linklocal', 'uniquelocal'].includes(p) || /^[0-9A-Fa-f:.]+(\/\d{1,3})?$/.test(p));
  return ok ? parts : undefined;
}

/** `127.0.0.1:3001` or `[::1]:3001` → host and port. */
export function parseListen(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':');
  return Object.freeze({ host: value.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(value.slice(at + 1)) });
}
