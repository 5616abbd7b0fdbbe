import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The marketplace's request signature, one module for every caller: inbound verification, outbound signing, the
 * marketplace simulator and the Pact request filter.
 *
 *   PrivateKey = lowercase hex SHA-1 over ( full URL as addressed + raw body bytes + private key )
 *
 * The URL is the absolute URL the sender addressed (scheme, host, path and query, exactly as sent), so a
 * signature made for one URL fails on any other. The body is the raw bytes on the wire, never a re-serialisation;
 * a GET has an empty body. Header name: `PrivateKey`.
 */
export const SIGNATURE_HEADER = 'PrivateKey';

export function signMarketplaceRequest(url: string, rawBody: Buffer | string, privateKey: string): string {
  return createHash('sha1')
    .update(url, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .update(privateKey, 'utf8')
    .digest('hex');
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'mismatch' };

/** Verifies a presented signature in constant time. `presented` is the header value as received. */
export function verifyMarketplaceSignature(
  url: string,
  rawBody: Buffer | string,
  privateKey: string,
  presented: string | string[] | undefined,
): SignatureCheck {
  if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
  const value = Array.isArray(presented) ? presented[0] : presented;
  if (!/^[0-9a-fA-F]{40}$/.test(value)) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(signMarketplaceRequest(url, rawBody, privateKey), 'hex');
  const actual = Buffer.from(value.toLowerCase(), 'hex');
  return timingSafeEqual(expected, actual) ? { ok: true } : { ok: false, reason: 'mismatch' };
}

/** Joins a base URL (e.g. MARKETPLACE_IN_URL) and a path + query into the URL that is signed. */
export function marketplaceUrl(base: string, pathAndQuery: string): string {
  return `${base.replace(/\/$/, '')}/${pathAndQuery.replace(/^\//, '')}`;
}
