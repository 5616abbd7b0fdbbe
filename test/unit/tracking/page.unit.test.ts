import { project, MIN_SPAN_KM } from '../../../src/http/tracking/map';
import { renderTrackingGone, renderTrackingPage, STATUS_WORDS, type TrackingPageView } from '../../../src/http/tracking/page';

const CMB = { lat: 7.174016, lon: 79.887887 };
const KANDY = { lat: 7.2906, lon: 80.6336 };
const view = (over: Partial<TrackingPageView> = {}): TrackingPageView => ({
  bookingRef: 'GM32DFCW',
  status: 'driver_en_route',
  phase: 'live',
  pickupName: 'Bandaranaike International Airport (CMB)',
  dropoffName: 'Earl’s Regency, Kandy',
  pickup: CMB,
  dropoff: KANDY,
  pickupAt: new Date('2026-12-01T04:00:00Z'), // 09:30 in Colombo
  pickupEstimatedAt: null,
  trackingStartsAt: new Date('2026-12-01T02:00:00Z'),
  flight: null,
  driver: { firstName: 'Nimal', vehicle: 'Toyota Prius', colour: 'white', plate: 'WP CAB-1234' },
  position: { lat: 7.13, lon: 79.93, at: new Date('2026-12-01T03:31:10Z') },
  etaMinutes: 12,
  emergencyPhone: '+94 11 234 5678',
  now: new Date('2026-12-01T03:31:40Z'),
  ...over,
});

/** What a reader sees: the page's text without tags, entities decoded. */
const visible = (html: string) =>
  html
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
const viewBox = (html: string) => {
  const [x, y, w, h] = /<svg class="map-svg"[^>]* viewBox="([^"]+)"/.exec(html)![1].split(' ').map(Number);
  return { x, y, w, h };
};
const contains = (b: { x: number; y: number; w: number; h: number }, p: { lat: number; lon: number }) => {
  const q = project(p);
  return q.x > b.x && q.x < b.x + b.w && q.y > b.y && q.y < b.y + b.h;
};

describe('the tracking page', () => {
  it.each(Object.entries(STATUS_WORDS))('when the booking is %s, then the status line says "%s"', (status, words) => {
    const html = renderTrackingPage(view({ status: status as TrackingPageView['status'] }));
    expect(html).toMatch(new RegExp(`<h1 id="status-h">${words}</h1>`));
  });

  it('when the driver is on the way, then it shows their first name, car, colour, big plate, the ETA and when it was updated (Sri Lanka time)', () => {
    const html = renderTrackingPage(view());
    const text = visible(html);
    expect(text).toContain('Your driver is on the way');
    expect(text).toContain('about 12 min away');
    expect(html).toContain('<p class="name">Nimal</p>');
    expect(text).toContain('Toyota Prius · White');
    expect(html).toContain('<p class="plate">WP CAB-1234</p>');
    expect(text).toContain('Updated 09:01');
    expect(text).toContain('Tue 1 Dec, 09:30');
    expect(text).toContain('Bandaranaike International Airport (CMB)');
    expect(text).toContain('Earl’s Regency, Kandy');
  });

  it('when the ETA is unknown or long, then it says nothing or hours; when there is no position, then "Updated" is now', () => {
    expect(visible(renderTrackingPage(view({ etaMinutes: null })))).not.toContain('min away');
    expect(visible(renderTrackingPage(view({ etaMinutes: 75 })))).toContain('about 1 h 15 min away');
    expect(visible(renderTrackingPage(view({ etaMinutes: 0.4 })))).toContain('less than a minute away');
    expect(visible(renderTrackingPage(view({ position: null })))).toContain('Updated 09:01');
    expect(visible(renderTrackingPage(view({ position: { ...CMB, at: new Date('2026-12-01T03:20:00Z') } })))).toContain(
      'Updated 08:50 · position from 12 min ago',
    );
  });

  it('when a late flight moved the pickup, then it says so, with the booked time, the new one and the flight line', () => {
    const html = renderTrackingPage(
      view({
        pickupEstimatedAt: new Date('2026-12-01T05:40:00Z'),
        flight: { number: 'UL504', status: 'delayed', estimatedArrival: new Date('2026-12-01T05:10:00Z') },
      }),
    );
    const text = visible(html);
    expect(text).toContain('Booked for Tue 1 Dec, 09:30');
    expect(text).toContain('Moved to 11:10 because flight UL504 is delayed');
    expect(text).toContain('UL504 · Delayed · expected 10:40');
    expect(visible(renderTrackingPage(view()))).not.toContain('Moved to');
  });

  it('when more than 2 h before pickup, then it says when live tracking starts, shows no driver, no driver marker, the whole island, and does not refresh', () => {
    const html = renderTrackingPage(view({ phase: 'upcoming', status: 'driver_assigned' }));
    const text = visible(html);
    expect(text).toContain('Driver assigned');
    expect(text).toContain('Live tracking starts at Tue 1 Dec, 07:30');
    expect(text).toContain('Tue 1 Dec, 09:30');
    expect(html).not.toContain('WP CAB-1234');
    expect(html).not.toContain('Nimal');
    expect(html).not.toContain('class="m-driver');
    expect(html).not.toContain('http-equiv="refresh"');
    expect(viewBox(html).h).toBeGreaterThan(400);
  });

  it('when live, then it refreshes itself every 30 s; once completed, cancelled or a no-show, it stops, and shows no driver', () => {
    expect(renderTrackingPage(view())).toContain('<meta http-equiv="refresh" content="30">');
    for (const status of ['completed', 'cancelled', 'no_show'] as const) {
      const html = renderTrackingPage(view({ status }));
      expect(html).not.toContain('http-equiv="refresh"');
      expect(html).not.toContain('class="m-driver');
      expect(html).not.toContain('WP CAB-1234');
    }
  });

  it('when it renders, then it is one document with no script and no request: every src/href is tel: or data:, and no URL at all', () => {
    const nasty = view({
      pickupName: '<script>alert(1)</script>',
      dropoffName: '<img src=x onerror=alert(2)>',
      driver: { ...view().driver!, firstName: '<b>x</b>' },
    });
    for (const html of [
      renderTrackingPage(view()),
      renderTrackingPage(nasty),
      renderTrackingPage(view({ phase: 'upcoming' })),
      renderTrackingGone({ bookingRef: 'GM32DFCW', emergencyPhone: '+94 11 234 5678' }),
    ]) {
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(html).not.toMatch(/<script/i);
      expect(html).not.toMatch(/https?:/i);
      expect(html).not.toMatch(/<(iframe|object|embed|img|image|use|link rel="stylesheet")\b/i);
      expect(html).not.toMatch(/url\(|@import/);
      const tags = html.match(/<[^>]+>/g)!.join('\n'); // real tags only: escaped text has no '<'
      const targets = [...tags.matchAll(/\s(?:src|href|xlink:href|action|formaction|poster|srcset)\s*=\s*["']?([^"'\s>]*)/gi)].map((m) => m[1]);
      for (const t of targets) expect(t).toMatch(/^(tel:\+?\d+|data:,)$/);
      expect(html).toContain('href="tel:+94112345678"');
      expect(html.length).toBeLessThan(30_000);
    }
  });

  it('when a name holds markup, then it comes out escaped, in the text, the map and its title', () => {
    const html = renderTrackingPage(
      view({ pickupName: '<script>alert(1)</script>', dropoffName: '"><svg onload=alert(2)>', driver: { ...view().driver!, firstName: `O'Brien <b>` } }),
    );
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;svg onload=alert(2)&gt;');
    expect(html).toContain('O&#39;Brien &lt;b&gt;');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('onload=alert(2)>');
  });

  it('when the driver has a position, then the map marks it (and only then); the map is an image with a title', () => {
    const html = renderTrackingPage(view());
    expect(html).toMatch(/<svg class="map-svg"[^>]*role="img"[^>]*aria-labelledby="map-title"/);
    expect(html).toMatch(
      /<title id="map-title">Map of Sri Lanka showing the pickup, Bandaranaike International Airport \(CMB\), .*Nimal’s last position<\/title>/,
    );
    expect(html.match(/class="m-driver"/g)).toHaveLength(1);
    expect(html).toContain('class="m-pickup"');
    expect(html).toMatch(/class="l-mark"[^>]*>Pickup</);
    expect(renderTrackingPage(view({ position: null }))).not.toContain('class="m-driver');
  });

  it('when live with a position, then the map is cropped around the pickup and the driver (≥ 20 km across), with an arrow to a far drop-off', () => {
    const html = renderTrackingPage(view());
    const box = viewBox(html);
    expect(box.w).toBeGreaterThanOrEqual(MIN_SPAN_KM);
    expect(box.w).toBeLessThan(40);
    expect(contains(box, CMB) && contains(box, { lat: 7.13, lon: 79.93 })).toBe(true);
    expect(contains(box, KANDY)).toBe(false);
    expect(html).toContain('m-arrow');
    expect(visible(html)).toContain('To drop-off');

    const atPickup = viewBox(renderTrackingPage(view({ status: 'driver_arrived', position: { ...CMB, at: new Date('2026-12-01T03:31:00Z') } })));
    expect(atPickup.w).toBeCloseTo(MIN_SPAN_KM, 5);
    expect(contains(atPickup, CMB)).toBe(true);

    const far = { lat: 6.9271, lon: 79.8612 };
    const farBox = viewBox(renderTrackingPage(view({ position: { ...far, at: new Date('2026-12-01T03:31:00Z') } })));
    expect(contains(farBox, CMB) && contains(farBox, far)).toBe(true);
    expect(farBox.w).toBeGreaterThan(MIN_SPAN_KM);
  });

  it('when on board, then the map frames the whole trip: pickup, drop-off and driver', () => {
    const galle = { lat: 6.0269, lon: 80.217 };
    const car = { lat: 6.7, lon: 79.95 };
    const html = renderTrackingPage(view({ status: 'passenger_on_board', dropoff: galle, position: { ...car, at: new Date('2026-12-01T03:31:00Z') } }));
    const box = viewBox(html);
    for (const p of [CMB, galle, car]) expect(contains(box, p)).toBe(true);
    expect(box.w).toBeLessThan(250);
    expect(html).toContain('class="m-dropoff"');
    expect(visible(html)).toContain('On board — enjoy the ride');
  });
});

describe('the expired tracking link page', () => {
  it('says the link has expired, names the booking and gives the emergency phone, without refreshing', () => {
    const html = renderTrackingGone({ bookingRef: 'GM32<DFCW>', emergencyPhone: '+94 11 234 5678' });
    expect(visible(html)).toContain('This tracking link has expired');
    expect(html).toContain('GM32&lt;DFCW&gt;');
    expect(html).toContain('<a class="call" href="tel:+94112345678">Call +94 11 234 5678</a>');
    expect(html).not.toContain('http-equiv="refresh"');
    expect(html).not.toContain('<svg');
  });
});
