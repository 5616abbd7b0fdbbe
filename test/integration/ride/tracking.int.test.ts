import { ManualClock } from '../../../src/shared/clock';
import { quoteAndBook } from '../../support/bookings';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';
const PICKUP = Date.parse('2026-12-01T04:00:00Z');
const at = (minutes: number) => new Date(PICKUP + minutes * 60_000).toISOString();

/** The passenger tracking link: 404 unknown, upcoming, live with the driver and position, 410 an hour after the end; every view audited. */
describe('Passenger tracking link', () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, outboxWorker: false, partner: 'Tracking Travel' });
  afterEach(() => clock.set(NOW));
  const open = (url: string) => svc.call('GET', new URL(url).pathname);

  it('when a traveller opens the link, then it shows the pickup, then the live ride, then 410; an unknown token is a plain 404', async () => {
    const { booking } = await quoteAndBook(svc.call, svc.partner.testKey);
    expect(booking.tracking_url).toMatch(new RegExp(`^${svc.app.deps.config.publicBaseUrl}/t/[A-Za-z0-9]{24}$`));

    const unknown = await svc.call('GET', '/t/NoSuchTokenNoSuchToken12');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(unknown.text).not.toContain(booking.booking_ref);

    const upcoming = await open(booking.tracking_url);
    expect(upcoming.status).toBe(200);
    expect(upcoming.headers.get('content-type')).toMatch(/^text\/html/);
    expect(upcoming.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(upcoming.text).toContain('Live tracking starts');
    expect(upcoming.text).not.toContain('Sandbox');

    const move = (to: string) =>
      svc.call('POST', `/transfers/v1/test_helpers/bookings/${booking.booking_ref}/advance`, { key: svc.partner.testKey, body: { to } });
    clock.set(at(-100));
    expect((await move('driver_en_route')).status).toBe(200);
    const live = await open(booking.tracking_url);
    expect(live.status).toBe(200);
    expect(live.text).toContain('Your driver is on the way');
    expect(live.text).toContain('SANDBOX-1');
    expect(live.text).toMatch(/min away/);
    expect(live.text).not.toMatch(/<script/i);
    // On board, the ETA is to the drop-off.
    clock.set(at(10));
    expect((await move('passenger_on_board')).status).toBe(200);
    const onBoard = await open(booking.tracking_url);
    expect(onBoard.text).toMatch(new RegExp(`<p class="eta">about [^<]+ to ${booking.dropoff.name}</p>`));
    expect(onBoard.text).not.toMatch(/min away/);

    clock.set(at(40));
    expect((await move('completed')).status).toBe(200);
    clock.set(at(99));
    expect((await open(booking.tracking_url)).status).toBe(200);
    clock.set(at(101));
    const gone = await open(booking.tracking_url);
    expect(gone.status).toBe(410);
    expect(gone.text).toMatch(/expired/i);

    const views = await svc.ops.audit({ surface: 'tracking', limit: '20' });
    expect(views.filter((r) => r.direction === 'inbound').map((r) => r.response_status ?? r.status)).toEqual(expect.arrayContaining([404, 200, 410]));
  });
});
