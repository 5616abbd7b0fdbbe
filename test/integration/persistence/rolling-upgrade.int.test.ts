import { freshDatabase, startTestApp, type TestApp, type TestDatabase } from '../../support/test-app';
import { migrateLatest } from '../../../src/data/knex';
import { client, type Call } from '../../support/http';
import { operator } from '../../support/fixtures';
import { quoteAndBook } from '../../support/bookings';
import { backend } from '../../support/test-app';

/**
 * A rolling upgrade: for minutes the release still serving runs on a schema the next release has already expanded
 * (docs/operations.md#rolling-upgrades-expand-then-contract). Here the next release is simulated by what an
 * expand-only migration does, a new nullable column and a new table, recorded as applied; then this build restarts
 * on that database (its start migrates: knex must not refuse migrations it does not know) and serves.
 */
describe(`This release on a schema a newer release expanded (${backend})`, () => {
  let database: TestDatabase;
  let app: TestApp;
  let call: Call;

  beforeAll(async () => {
    database = await freshDatabase();
    const db = database.db;
    await db.raw('alter table bookings add column pickup_sign text');
    await db.raw('create table booking_photos (booking_ref text not null, url text not null)');
    await db('knex_migrations').insert({ name: '29991231000000_next_release.ts', batch: 999, migrationTime: new Date() });
    // A restart of this release: the start's migration finds one it does not know, already applied.
    await migrateLatest(db, database.schema);
    app = await startTestApp({ db: database });
    call = client(app.url);
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  it('when it restarts and serves, then it is ready, and a quote, booking, read, amendment and cancellation all work', async () => {
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    const p = await operator(app.url).partnerWithKeys('Upgrade Travel');
    const { booking, etag } = await quoteAndBook(call, p.testKey);
    expect((await call('GET', `/transfers/v1/bookings/${booking.booking_ref}`, { key: p.testKey })).status).toBe(200);
    const amended = await call('PATCH', `/transfers/v1/bookings/${booking.booking_ref}`, {
      key: p.testKey,
      headers: { 'If-Match': etag },
      body: { notes: 'Sign: Perera' },
    });
    expect(amended.status).toBe(200);
    const cancelled = await call('POST', `/transfers/v1/bookings/${booking.booking_ref}/cancel`, { key: p.testKey });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    // The newer release's column is there, untouched by this one.
    const row = await app.db('bookings').where({ bookingRef: booking.booking_ref }).first();
    expect(row).toHaveProperty('pickupSign', null);
  });
});
