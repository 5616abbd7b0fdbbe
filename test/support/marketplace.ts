import { signMarketplaceRequest } from '../../src/shared/signing/marketplace-signature';
import { client } from './http';

export const MARKETPLACE_ENV = {
  MARKETPLACE_IN_URL: 'https://supplier.example.lk/marketplace',
  MARKETPLACE_URL: 'http://marketplace.test',
  MARKETPLACE_USER_ID: '1001',
  MARKETPLACE_PRIVATE_KEY: 'test-marketplace-private-key',
  MARKETPLACE_CALLBACK_TOKEN: 'test-callback-token-123',
};

/**
 * Calls the marketplace surface the way the marketplace does: addressed at MARKETPLACE_IN_URL (the public
 * address, behind which the test server sits) and signed over that URL and the exact body bytes.
 */
export function marketplaceClient(baseUrl: string, env = MARKETPLACE_ENV) {
  const call = client(baseUrl);
  const mount = new URL(env.MARKETPLACE_IN_URL).pathname;
  return {
    signed(method: string, pathAndQuery: string, body?: unknown, opts: { signAs?: string; key?: string; headers?: Record<string, string> } = {}) {
      const raw = body === undefined ? '' : JSON.stringify(body);
      const signedUrl = opts.signAs ?? `${env.MARKETPLACE_IN_URL}${pathAndQuery}`;
      const signature = signMarketplaceRequest(signedUrl, raw, opts.key ?? env.MARKETPLACE_PRIVATE_KEY);
      return call(method, `${mount}${pathAndQuery}`, {
        rawBody: body === undefined ? undefined : raw,
        headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), PrivateKey: signature, ...(opts.headers ?? {}) },
      });
    },
    unsigned(method: string, pathAndQuery: string, body?: unknown, headers: Record<string, string> = {}) {
      return call(method, `${mount}${pathAndQuery}`, { body, headers });
    },
  };
}
