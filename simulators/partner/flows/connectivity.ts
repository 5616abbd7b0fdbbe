import { retrying } from '../client';
import { flowRecorder, type Check, type Flow } from './flow';

/** The key works and reaches the sandbox. */
export const connectivityFlow: Flow = async (client, ctx) => {
  const flow = flowRecorder('connectivity', ctx);
  const api = retrying(client, ctx.retryPolicy);
  await flow.check('ping.sandbox', 'GET /ping answers 200 with ok, env sandbox and X-Service-Env: sandbox', async (c: Check) => {
    const r = c.record(await api.ping());
    c.equal(r.status, 200, 'status');
    c.expect(r.data?.ok === true, 'ping body has ok: true');
    c.equal(r.data?.env, 'sandbox', 'body env');
    c.equal(r.headers.get('x-service-env'), 'sandbox', 'X-Service-Env header');
    c.expect(r.requestId, 'responses carry an X-Request-Id');
    c.detail(`partner "${r.data?.partner}", server time ${r.data?.time}`);
  });
  return flow.result();
};
