import { AuthError, createPartnerClient, retrying, type FetchLike } from '../client';
import { flowRecorder, type Check, type Flow } from './flow';

export const MALFORMED_KEY = 'svc_sk_test_not-a-real-key';

/** A bad key is a 401 with code unauthorized; the retrying client raises AuthError at once and never retries it. */
export const authenticationFlow: Flow = async (_client, ctx) => {
  const flow = flowRecorder('authentication', ctx);
  await flow.check('auth.unauthorized', 'a malformed key answers 401 unauthorized, and the client raises AuthError without retrying', async (c: Check) => {
    let hits = 0;
    const transport = ctx.fetch ?? ((req: Request) => fetch(req));
    const counting: FetchLike = (req) => {
      hits += 1;
      return transport(req);
    };
    const bad = createPartnerClient({ baseUrl: ctx.baseUrl, apiKey: MALFORMED_KEY, fetch: counting });
    const r = c.record(await bad.ping(), 'ping with a malformed key');
    c.equal(r.status, 401, 'status');
    c.equal(r.error?.code, 'unauthorized', 'error.code');
    hits = 0;
    let raised: unknown;
    try {
      await retrying(bad, { ...ctx.retryPolicy, baseDelayMs: 10 }).ping();
    } catch (err) {
      raised = err;
    }
    c.expect(raised instanceof AuthError, `the retrying client did not raise AuthError (got ${raised === undefined ? 'a result' : String(raised)})`);
    c.record(raised.result, 'retrying client: AuthError', `${hits} request(s)`);
    c.equal(hits, 1, 'requests made by the retrying client for a 401');
    c.detail('401 unauthorized; AuthError raised after 1 request');
  });
  return flow.result();
};
