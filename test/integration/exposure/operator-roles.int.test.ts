import { readFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { backend } from '../../support/test-app';
import { operator } from '../../support/fixtures';
import { quote } from '../../support/bookings';
import { useTestApp } from '../../support/use-test-app';
import { ManualClock } from '../../../src/shared/clock';

const PHONE = '+94 77 123 4567';

/**
 * Who may mint a driver's token (which acts as the driver): an admin, or a dispatcher for a driver on the roster.
 *
 * The roles that only read: `metrics` (the Prometheus scraper's) reads GET /metrics and nothing of the operator API;
 * a viewer reads the board with passengers masked (first name and initial, the phone's last 3 digits), while a
 * dispatcher and an admin see them whole (contracts/ops-v1.yaml, "Passengers, by role").
 */
describe(`Operator roles that only read (${backend})`, () => {
  const svc = useTestApp({ clock: new ManualClock('2026-11-21T08:00:00Z') });
  const ops = () => operator(svc.app.url);
  const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
  const tokens: Record<string, { token: string; operator_id: string }> = {};
  let jobId: string;

  beforeAll(async () => {
    for (const role of ['metrics', 'viewer', 'dispatcher', 'admin'] as const) {
      const r = await ops().call('POST', '/operators', { body: { name: `Nimali ${role}`, role } });
      if (r.status !== 201) throw new Error(`createOperator ${r.status} ${r.text}`);
      tokens[role] = r.body;
    }
    const p = await ops().partnerWithKeys('Island Holidays');
    const q = await quote(svc.call, p.liveKey);
    const b = await svc.call('POST', '/transfers/v1/bookings', {
      key: p.liveKey,
      body: {
        quote_id: q.body.quote_id,
        offer_id: q.body.offers[0].offer_id,
        partner_reference: 'IH-301',
        passenger: { first_name: 'Ayesha', last_name: 'Perera', phone: PHONE },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      },
    });
    if (b.status !== 201) throw new Error(`booking ${b.status} ${b.text}`);
    // The partner's notes for the driver, which may repeat the passenger's name and numbers.
    const amended = await svc.call('PATCH', `/transfers/v1/bookings/${b.body.booking_ref}`, {
      key: p.liveKey,
      headers: { 'If-Match': b.headers.get('etag')! },
      body: { notes: `Sign: Mrs Perera. Call ${PHONE} or 0112345678 if late.` },
    });
    if (amended.status !== 200) throw new Error(`amend ${amended.status} ${amended.text}`);
    [{ job_id: jobId }] = await ops().jobs({ booking_ref: b.body.booking_ref });
  });

  it('when the metrics role scrapes, then /metrics is served and every operation of the operator API is 403, audited under its operator', async () => {
    const metrics = await svc.call('GET', '/metrics', as(tokens.metrics.token));
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('# TYPE');

    const contract = yaml.load(readFileSync(path.join(__dirname, '../../../contracts/ops-v1.yaml'), 'utf8')) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const answers: Array<[string, number, string]> = [];
    for (const [route, methods] of Object.entries(contract.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!op.operationId) continue;
        const url = `/ops/v1${route.replace(/\{[^}]+\}/g, 'x1')}`;
        const r = await svc.call(method.toUpperCase(), url, { ...as(tokens.metrics.token), ...(method === 'get' ? {} : { body: {} }) });
        answers.push([op.operationId, r.status, r.body?.error?.details?.role]);
      }
    }
    expect(answers.length).toBeGreaterThan(40);
    expect(answers.filter(([, status, role]) => status !== 403 || role !== 'metrics')).toEqual([]);
    const audited = await svc.app.db('audit_log').where({ operator_id: tokens.metrics.operator_id, surface: 'ops' }).count({ n: '*' });
    expect(Number(audited[0].n)).toBe(answers.length);
  });

  it('when a viewer reads the board, then the passenger is the first name and initial and the phone its last 3 digits, in the job and its texts', async () => {
    const list = await svc.call('GET', '/ops/v1/jobs?date=2026-12-01', as(tokens.viewer.token));
    expect(list.status).toBe(200);
    const one = await svc.call('GET', `/ops/v1/jobs/${jobId}`, as(tokens.viewer.token));
    expect(one.status).toBe(200);
    for (const job of [list.body.data.find((j: { job_id: string }) => j.job_id === jobId), one.body]) {
      expect(job.passenger).toEqual({ name: 'Ayesha P.', phone: '+•• •• ••• •567' });
      expect(job.notes).toBe('Sign: Mrs P.. Call +•• •• ••• •567 or •••••••678 if late.');
      expect(job.meeting_instructions).toContain("holding a name board reading 'Ayesha P.'");
    }
    for (const text of [list.text, one.text]) {
      expect(text).not.toMatch(/Perera|4567|345678/);
    }
  });

  it('when a dispatcher or an admin reads the same job, then the passenger is whole', async () => {
    for (const role of ['dispatcher', 'admin']) {
      const one = await svc.call('GET', `/ops/v1/jobs/${jobId}`, as(tokens[role].token));
      expect({ role, passenger: one.body.passenger }).toEqual({ role, passenger: { name: 'Ayesha Perera', phone: PHONE } });
      expect(one.body.notes).toBe(`Sign: Mrs Perera. Call ${PHONE} or 0112345678 if late.`);
      expect(one.body.meeting_instructions).toContain("reading 'Ayesha Perera'");
      const list = await svc.call('GET', '/ops/v1/jobs?date=2026-12-01', as(tokens[role].token));
      expect(list.body.data.find((j: { job_id: string }) => j.job_id === jobId).passenger.name).toBe('Ayesha Perera');
    }
  });

  it('when operators ask for driver tokens, then an admin or a dispatcher gets one for a driver on the roster, and a dispatcher is refused 403 for a driver off it', async () => {
    const onRoster = await ops().driver('Sunil Fernando', '+94 77 000 0001');
    const offRoster = await ops().driver('Kamal Silva', '+94 77 000 0002');
    expect((await ops().call('POST', `/drivers/${offRoster.driver_id}/deactivate`)).status).toBe(200);
    const mint = (driverId: string, role: string) => svc.call('POST', `/ops/v1/drivers/${driverId}/tokens`, as(tokens[role].token));

    for (const role of ['dispatcher', 'admin']) {
      const r = await mint(onRoster.driver_id, role);
      expect({ role, status: r.status, by: r.body.created_by }).toEqual({ role, status: 201, by: tokens[role].operator_id });
    }
    const refused = await mint(offRoster.driver_id, 'dispatcher');
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      403,
      'forbidden',
      { required_role: 'admin', role: 'dispatcher', driver_id: offRoster.driver_id, reason: 'driver_inactive' },
    ]);
    // An admin is not refused for the role, but a driver off the roster gets no token from anyone.
    const admin = await mint(offRoster.driver_id, 'admin');
    expect([admin.status, admin.body.error.details.reason]).toEqual([409, 'driver_inactive']);
    for (const role of ['viewer', 'metrics']) expect({ role, status: (await mint(onRoster.driver_id, role)).status }).toEqual({ role, status: 403 });
    // Only the two tokens minted exist.
    expect((await svc.app.db('driver_tokens').select('driver_id')).map((t) => t.driverId)).toEqual([onRoster.driver_id, onRoster.driver_id]);
  });
});
