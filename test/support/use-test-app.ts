import { ManualClock } from '../../src/shared/clock';
import { operator } from './fixtures';
import { client, type Call } from './http';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app';

export type Operator = ReturnType<typeof operator>;
export type PartnerWithKeys = Awaited<ReturnType<Operator['partnerWithKeys']>>;

export interface UseTestAppOptions extends TestAppOptions {
  /** Before the tests, create a partner of this name with a sandbox and a production key (`svc.partner`). */
  partner?: string;
  /** After each test, set the ManualClock given as `clock` back to the time it showed at set-up. */
  resetClock?: boolean;
}

/** What the tests of a file share, filled in before the first of them runs. */
export interface TestAppHandle {
  /** The service in-process on a random port, against a fresh database. */
  app: TestApp;
  /** Calls the service (see http.ts). */
  call: Call;
  /** Drives the operator API with the operator token (see fixtures.ts). */
  ops: Operator;
  /** The partner named by `partner` (undefined without it). */
  partner: PartnerWithKeys;
}

/**
 * The usual set-up of an integration test file, registered in the describe block (or file) that calls it: before
 * all its tests, `startTestApp(options)` (the service on a random port against a fresh database, PGlite in memory or
 * a new PostgreSQL schema), a client and an operator for it and, with `partner`, a partner with both keys; after
 * all, the service stopped and its database dropped. A file's own beforeAll, registered after this call, runs after
 * this set-up and can use it.
 *
 *   const svc = useTestApp({ clock, partner: 'Quote Partner', resetClock: true });
 *   it('…', async () => { await svc.call('GET', '/transfers/v1/ping', { key: svc.partner.testKey }); });
 */
export function useTestApp(options: UseTestAppOptions = {}): TestAppHandle {
  const { partner: partnerName, resetClock, ...appOptions } = options;
  const svc = {} as TestAppHandle;
  beforeAll(async () => {
    svc.app = await startTestApp(appOptions);
    svc.call = client(svc.app.url);
    svc.ops = operator(svc.app.url);
    if (partnerName !== undefined) svc.partner = await svc.ops.partnerWithKeys(partnerName);
  });
  afterAll(() => svc.app?.close());
  if (resetClock) {
    const clock = options.clock;
    if (!(clock instanceof ManualClock)) throw new Error('useTestApp: resetClock needs a ManualClock as `clock`');
    const start = clock.now();
    afterEach(() => clock.set(start));
  }
  return svc;
}
