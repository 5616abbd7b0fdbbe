import { marketplaceNoticeBody } from '../../../src/adapters/marketplace/notice-bodies';
import { BRANDS, listingOf } from '../../../src/domain/marketplace/listing';
import { FLEET, vehicleOf } from '../../../src/domain/kernel/fleet';
import { changeAnswer, orderAck, requoteAnswer, searchAnswer, wireVehicle } from '../../../src/http/marketplace/answers';
import type { OrderAnswer } from '../../../src/domain/marketplace/orders';

const AT = new Date('2026-12-01T03:50:00Z'); // 09:20 in Sri Lanka

describe('Marketplace wire bodies, made from domain outcomes', () => {
  it('when a driver is assigned, then the body names our brand id and the vehicle colour as `color`', () => {
    const vehicle = { brand: 'Toyota', model: 'Axio', plate: 'CBG-7781', colour: 'white' };
    const body = marketplaceNoticeBody({ kind: 'driver_info', orderId: 'INT-1', driver: { name: 'Sunil Fernando', phone: '+94 77 123 4567' }, vehicle });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        order_id: 'INT-1',
        driver: { name: 'Sunil Fernando', phone: '+94 77 123 4567' },
        vehicle: { brand_id: 1, brand: 'Toyota', model: 'Axio', plate: 'CBG-7781', color: 'white' },
      }),
    );
    // A brand not in our list (registered before it was checked): sent without an id.
    const other = marketplaceNoticeBody({ kind: 'driver_info', orderId: 'INT-1', driver: { name: 'A', phone: '1' }, vehicle: { ...vehicle, brand: 'Tata' } });
    expect(other).toEqual({
      order_id: 'INT-1',
      driver: { name: 'A', phone: '1' },
      vehicle: { brand: 'Tata', model: 'Axio', plate: 'CBG-7781', color: 'white' },
    });
  });

  it('when positions and a no-show are sent, then their times are local Sri Lanka time', () => {
    expect(marketplaceNoticeBody({ kind: 'driver_location', orderId: 'INT-2', position: { lat: 7.1, lon: 79.8, at: AT } })).toEqual({
      order_id: 'INT-2',
      lat: 7.1,
      lon: 79.8,
      at: '2026-12-01 09:20:00',
    });
    expect(marketplaceNoticeBody({ kind: 'no_show', orderId: 'INT-2', track: [{ lat: 7.1, lon: 79.8, at: AT }], comment: 'Waited.' })).toEqual({
      order_id: 'INT-2',
      evidence: { gps_track: [{ lat: 7.1, lon: 79.8, at: '2026-12-01 09:20:00' }], comment: 'Waited.' },
    });
  });

  it('when an order is confirmed, declined or its change answered, then the bodies are as the marketplace expects them', () => {
    expect(marketplaceNoticeBody({ kind: 'confirm_order', orderId: 'INT-3', supplierOrderId: 'MO-ABCDEFGH' })).toEqual({
      order_id: 'INT-3',
      supplier_order_id: 'MO-ABCDEFGH',
    });
    expect(marketplaceNoticeBody({ kind: 'decline_order', orderId: 'INT-3', reason: 'price_mismatch', comment: 'Too low.' })).toEqual({
      order_id: 'INT-3',
      reason: 'price_mismatch',
      comment: 'Too low.',
    });
    expect(marketplaceNoticeBody({ kind: 'change_confirmation', orderId: 'INT-3', accepted: true })).toEqual({ order_id: 'INT-3', accepted: true });
    expect(marketplaceNoticeBody({ kind: 'change_confirmation', orderId: 'INT-3', accepted: false, comment: 'No room.' })).toEqual({
      order_id: 'INT-3',
      accepted: false,
      comment: 'No room.',
    });
  });

  it('when a vehicle is priced, then it is listed as its typical model, in EUR, with a local expiry', () => {
    const price = { priceMark: 'pm_1', vehicle: vehicleOf('standard_car'), amountMinor: 6250, distanceKm: 123.4, durationMin: 170, expiresAt: AT };
    expect(wireVehicle(price)).toEqual({
      vehicle_id: 'standard_car',
      price_mark: 'pm_1',
      title: 'Toyota Axio Sedan 1-3 passengers',
      brand: 'Toyota',
      model: 'Axio',
      class: 'standard',
      transfer_type: 'private',
      max_passengers: 3,
      max_luggage: 3,
      price: '62.50',
      currency: 'EUR',
      distance_km: 123.4,
      duration_min: 170,
      meeting_types: ['MG', 'NMG'],
      free_cancellation_hours: 24,
      expires_at: '2026-12-01 09:20:00',
    });
    expect(JSON.stringify(searchAnswer({ kind: 'declined', reason: 'short_notice', message: 'Too soon.' }))).toBe(
      '{"status":"OK","vehicles":[],"reason":"short_notice","message":"Too soon."}',
    );
    expect(requoteAnswer({ kind: 'no_vehicle', reason: 'unknown_vehicle', message: 'vehicle x is not in our fleet' })).toEqual({
      status: 'NO_VEHICLE',
      error: 'vehicle x is not in our fleet',
      reason: 'unknown_vehicle',
    });
  });

  it('when an order call is answered, then the acknowledgement carries the state, a decline reason and staleness only when there are some', () => {
    const answer: OrderAnswer = { kind: 'order', orderId: 'INT-4', supplierOrderId: 'MO-1', state: 'completed', declineReason: null, stale: false };
    expect(JSON.stringify(orderAck(answer))).toBe('{"status":"OK","order_id":"INT-4","supplier_order_id":"MO-1","order_state":"completed"}');
    expect(JSON.stringify(orderAck({ ...answer, state: 'declined', declineReason: 'no_vehicle', stale: true }))).toBe(
      '{"status":"OK","order_id":"INT-4","supplier_order_id":"MO-1","order_state":"declined","decline_reason":"no_vehicle","stale":true}',
    );
    expect(changeAnswer({ kind: 'change_refused', reason: 'route_unknown', message: 'Not located.' })).toEqual({
      status: 'NO_VEHICLE',
      error: 'Not located.',
      reason: 'route_unknown',
    });
  });

  it('when the listing is loaded, then every fleet vehicle is listed under a brand of our brand list', () => {
    const names = new Set(BRANDS.map((b) => b.name));
    for (const v of FLEET) expect(names.has(listingOf(v.code).brand)).toBe(true);
    expect(new Set(BRANDS.map((b) => b.id)).size).toBe(BRANDS.length);
  });
});
