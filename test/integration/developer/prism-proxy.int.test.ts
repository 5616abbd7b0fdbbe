import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
import { validateOutput } from '@stoplight/prism-http/dist/validator';
import { loadContract } from '../../../src/http/surface';
import { eventually } from '../../support/eventually';
import { client, type CallOptions, type Reply } from '../../support/http';
import { freePort } from '../../support/net';
import { useTestApp } from '../../support/use-test-app';

/** What Prism writes into `sl-violations`: one entry per way the request or the response departs from the contract. */
interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

const PRISM = require.resolve('@stoplight/prism-cli/dist/index.js');
const QUOTE = { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: '2026-12-01T09:30:00+05:30', passengers: { adults: 2, luggage: 1 } };

/**
 * The contract as Prism is given it. OpenAPI 3.0 lets a nullable enum take null only when the enum lists it, so ours
 * do (`nullable: true, enum: [sandbox, production, null]`: the error envelope's `env`, the quote's `journey_type`).
 * Prism adds null to a nullable enum itself, and with it listed twice its validator refuses the schema and checks
 * nothing against it, saying nothing (stoplightio/prism#1931): no error body, and no quote, would be checked. Here
 * the listed null is left out for Prism to add back: the same schemas, which it can check.
 */
function contractForPrism(): object {
  const doc = loadContract('transfers-v1.yaml');
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const schema = node as { nullable?: boolean; enum?: unknown[] };
    if (schema.nullable === true && schema.enum?.includes(null)) schema.enum = schema.enum.filter((v) => v !== null);
    Object.values(node).forEach(visit);
  };
  visit(doc);
  return doc;
}

/**
 * A partner's first day, sent through Stoplight Prism's validation proxy (`prism proxy`, as a partner or a gateway
 * would put it in front of us) to the service in-process: Prism forwards every request (`--errors=false`) and marks
 * any answer that the contract does not describe (a status an operation does not declare, a body or header outside
 * its schema) with an `sl-violations` header. No answer of ours may carry a response violation.
 */
describe('The Transfers API behind Prism validation proxy', () => {
  const svc = useTestApp({ partner: 'Prism Partner' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-proxy-'));
  const contract = path.join(dir, 'transfers-v1.json');
  let prism: ChildProcess | undefined;
  let prismLog = '';
  let viaPrism: ReturnType<typeof client>;

  beforeAll(async () => {
    fs.writeFileSync(contract, JSON.stringify(contractForPrism()));
    const port = await freePort();
    prism = spawn(
      process.execPath,
      [PRISM, 'proxy', contract, `${svc.app.url}/transfers/v1`, '--errors=false', '--host', '127.0.0.1', '--port', String(port)],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
    );
    prism.stdout!.on('data', (d) => (prismLog += d));
    prism.stderr!.on('data', (d) => (prismLog += d));
    await eventually(
      'Prism to listen',
      async () => {
        if (prism!.exitCode !== null || prism!.signalCode !== null) throw new Error(`prism exited before listening:\n${prismLog}`);
        return prismLog.includes('Prism is listening') ? true : undefined;
      },
      30_000,
    );
    viaPrism = client(`http://127.0.0.1:${port}`);
  }, 60_000);

  afterAll(async () => {
    if (prism && prism.exitCode === null && prism.signalCode === null) {
      const exited = new Promise((resolve) => prism!.once('exit', resolve));
      prism.kill('SIGTERM');
      const timer = setTimeout(() => prism!.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when Prism reads the contract, then it can check every JSON body the contract declares (else it would pass them unchecked)', async () => {
    // Prism's own reader and validator, as the proxy runs them: a number is no body of ours, so each must be refused.
    // Each schema once (most responses share the error envelope's).
    const operations = await getHttpOperationsFromSpec(contract);
    const tried = new Map<string, boolean>();
    const unchecked: string[] = [];
    for (const op of operations)
      for (const r of op.responses)
        for (const c of r.contents ?? []) {
          if (!c.schema || !/json/.test(c.mediaType)) continue;
          const key = JSON.stringify(c.schema, (k, v) => (k === 'x-stoplight' ? undefined : v));
          if (!tried.has(key)) {
            const element = { statusCode: Number(r.code), headers: { 'content-type': c.mediaType }, body: 12345.5 };
            tried.set(key, validateOutput({ resource: op, element })._tag === 'Left');
          }
          if (!tried.get(key)) unchecked.push(`${op.iid} ${r.code}`);
        }
    expect(operations.length).toBeGreaterThan(25);
    expect(unchecked).toEqual([]);
  });

  it('when a partner quotes, books, replays, reads, cancels and meets the usual errors, then no answer violates the contract', async () => {
    const key = svc.partner.testKey;
    const seen: Array<{ step: string; violations: Violation[]; invalid: boolean }> = [];
    const wrongStatus: string[] = [];
    /**
     * Sends one request through Prism and keeps what Prism said of it, and whether the status was the one the flow
     * expects. `invalid`: the request breaks the contract on purpose (no key, a bad body or header), so Prism reports
     * the request too. `needed`: later steps use the answer, so a wrong status stops the test here.
     */
    async function step(name: string, want: number, method: string, p: string, opts: CallOptions & { invalid?: boolean; needed?: boolean } = {}) {
      const r: Reply = await viaPrism(method, p, opts);
      const header = r.headers.get('sl-violations');
      const where = `${name}: ${method} ${p.slice(0, 80)} → ${r.status}`;
      seen.push({ step: where, violations: header ? (JSON.parse(header) as Violation[]) : [], invalid: opts.invalid ?? false });
      if (r.status !== want) {
        if (opts.needed) throw new Error(`${where}, not ${want}: ${r.text.slice(0, 500)}`);
        wrongStatus.push(`${where}, not ${want}: ${r.text.slice(0, 300)}`);
      }
      return r;
    }

    await step('contract', 200, 'GET', '/openapi.json');
    await step('ping', 200, 'GET', '/ping', { key });
    const quote = await step('quote', 200, 'POST', '/quotes', { key, body: QUOTE, needed: true });
    const { quote_id, offers } = quote.body as { quote_id: string; offers: Array<{ offer_id: string }> };
    const declined = await step('declined quote', 200, 'POST', '/quotes', { key, body: { ...QUOTE, dropoff: { name: 'Villa Serendipity Hideaway' } } });
    expect(declined.body?.declined?.reason).toBe('route_unknown');

    const booking = {
      quote_id,
      offer_id: offers[0].offer_id,
      partner_reference: 'PRISM-1',
      passenger: { first_name: 'Nimal', last_name: 'Silva', email: 'nimal@example.com' },
      passengers: { adults: 2, luggage: 1 },
      flight_number: 'UL504',
    };
    const idem = { 'Idempotency-Key': 'prism-day-one-1' };
    const made = await step('booking', 201, 'POST', '/bookings', { key, body: booking, headers: idem, needed: true });
    const ref = made.body.booking_ref as string;
    const replay = await step('replay', 200, 'POST', '/bookings', { key, body: booking, headers: idem });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await step('read', 200, 'GET', `/bookings/${ref}`, { key });
    await step('cancel preview', 200, 'GET', `/bookings/${ref}/cancellation`, { key });
    await step('cancel', 200, 'POST', `/bookings/${ref}/cancel`, { key });

    await step('no key', 401, 'GET', '/ping', { invalid: true });
    await step('unknown booking', 404, 'GET', '/bookings/NOPE2345', { key });
    await step('bad body', 400, 'POST', '/quotes', { key, body: { ...QUOTE, passengers: { adults: 0 } }, invalid: true });
    await step('idempotent body conflict', 409, 'POST', '/bookings', { key, body: { ...booking, partner_reference: 'PRISM-2' }, headers: idem });
    // The text policy holds on every operation, those without a key included.
    await step('NUL in a query', 400, 'GET', '/openapi.json?format=%00');
    await step('body over the limit', 413, 'POST', `/test_helpers/bookings/${ref}/advance`, {
      key,
      body: { to: 'completed', pad: 'x'.repeat(70 * 1024) },
      invalid: true,
    });
    // Sandbox-Simulate is checked against the contract on every operation that takes a key: a value it does not
    // list is 400 wherever it is sent.
    const badFault = { 'Sandbox-Simulate': 'meteor_strike' };
    await step('bad Sandbox-Simulate on ping', 400, 'GET', '/ping', { key, headers: badFault, invalid: true });
    await step('bad Sandbox-Simulate on a booking', 400, 'GET', `/bookings/${ref}`, { key, headers: badFault, invalid: true });
    await step('bad Sandbox-Simulate on webhook endpoints', 400, 'GET', '/webhook_endpoints', { key, headers: badFault, invalid: true });
    await step('bad Sandbox-Simulate on pause', 400, 'POST', '/test_helpers/account/pause', { key, headers: badFault, invalid: true });
    await step('bad Sandbox-Simulate on resume', 400, 'POST', '/test_helpers/account/resume', { key, headers: badFault, invalid: true });
    await step('bad Sandbox-Simulate on erase', 400, 'POST', `/bookings/${ref}/erase`, { key, headers: badFault, invalid: true });
    // A simulated fault is answered on every operation that takes a key, test helpers included.
    const flight = { flight_number: 'UL504', date: '2026-12-01', delay_minutes: 30 };
    const inProgress = { 'Sandbox-Simulate': 'idempotency_in_progress' };
    await step('simulated in-progress on a flight', 409, 'POST', '/test_helpers/flights', { key, body: flight, headers: inProgress });
    await step('simulated 503 on ping', 503, 'GET', '/ping', { key, headers: { 'Sandbox-Simulate': 'service_unavailable' } });

    const said = (s: (typeof seen)[number], v: Violation) => `${s.step}: ${v.location.join('.')}: ${v.severity}${v.code ? ` ${v.code}` : ''}: ${v.message}`;
    // Prism checks an answer only when it matched the request to an operation of the contract: every step must.
    const unmatched = seen.flatMap((s) => s.violations.filter((v) => /route not found|route not resolved/i.test(v.message)).map((v) => said(s, v)));
    // The partner's own requests are valid ones (the test sends what the contract allows, except where it means not to).
    const requestViolations = seen.filter((s) => !s.invalid).flatMap((s) => s.violations.filter((v) => v.location[0] === 'request').map((v) => said(s, v)));
    const responseViolations = seen.flatMap((s) => s.violations.filter((v) => v.location[0] === 'response').map((v) => said(s, v)));
    expect({ wrongStatus, unmatched, requestViolations, responseViolations }).toEqual({
      wrongStatus: [],
      unmatched: [],
      requestViolations: [],
      responseViolations: [],
    });
    // The steps that break the contract on purpose were seen by Prism as breaking it (so it did check them).
    expect(seen.filter((s) => s.invalid && !s.violations.some((v) => v.location[0] === 'request')).map((s) => s.step)).toEqual([]);
  });
});
