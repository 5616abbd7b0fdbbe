import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bookings', (t) => {
    t.text('booking_ref').primary();
    t.text('partner_id').notNullable().references('partner_id').inTable('partners');
    t.text('env').notNullable();
    t.text('partner_reference').notNullable();
    t.text('quote_id').notNullable().references('quote_id').inTable('quotes');
    // One booking per offer, whatever the instance or the race: never a second vehicle.
    t.text('offer_id').notNullable().unique({ indexName: 'bookings_offer_id_unique' }).references('offer_id').inTable('offers');
    t.text('status').notNullable();
    t.text('vehicle').notNullable();
    t.text('vehicle_code').notNullable();
    t.text('vehicle_name').notNullable();
    t.bigInteger('amount_minor').notNullable();
    t.text('currency').notNullable();
    t.jsonb('pickup').notNullable();
    t.jsonb('dropoff').notNullable();
    t.text('pickup_datetime').notNullable();
    t.timestamp('pickup_at', { useTz: true }).notNullable();
    t.text('journey_type').notNullable();
    t.integer('adults').notNullable();
    t.integer('luggage').notNullable();
    t.jsonb('passenger').notNullable();
    t.text('flight_number');
    t.text('meeting_instructions').notNullable();
    t.text('emergency_phone').notNullable();
    t.text('request_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('cancelled_at', { useTz: true });
    // A partner reference names one booking per partner and environment.
    t.unique(['partner_id', 'env', 'partner_reference'], { indexName: 'bookings_partner_reference_unique' });
    t.check(`status in ('confirmed','cancelled')`, [], 'bookings_status_check');
    t.check(`(status = 'cancelled') = (cancelled_at is not null)`, [], 'bookings_cancelled_at_check');
  });

  // One fleet, one schedule: partner bookings (and, later, marketplace orders) become jobs operators dispatch.
  await knex.schema.createTable('jobs', (t) => {
    t.bigIncrements('job_id').primary();
    t.text('source').notNullable();
    t.text('source_ref').notNullable();
    t.text('env').notNullable();
    t.text('status').notNullable();
    t.text('vehicle').notNullable();
    t.timestamp('pickup_at', { useTz: true }).notNullable();
    t.integer('duration_min');
    t.jsonb('pickup').notNullable();
    t.jsonb('dropoff').notNullable();
    t.integer('adults').notNullable();
    t.integer('luggage').notNullable();
    t.jsonb('passenger').notNullable();
    t.text('flight_number');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['source', 'source_ref'], { indexName: 'jobs_source_unique' });
    t.index(['pickup_at']);
    t.check(`status in ('scheduled','cancelled','assigned','completed','no_show')`, [], 'jobs_status_check');
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('partner_id').notNullable();
    t.text('env').notNullable();
    t.text('idempotency_key').notNullable();
    t.text('operation').notNullable();
    t.text('fingerprint').notNullable();
    // Claimed (null response) and completed in one transaction: a committed row always holds its response.
    t.integer('response_status');
    t.text('response_body');
    t.text('request_id').notNullable();
    t.text('booking_ref');
    t.timestamp('created_at', { useTz: true }).notNullable();
    // At least 24 h after the booking's pickup, and never less than 7 days after first use.
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['partner_id', 'env', 'operation', 'idempotency_key']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
  await knex.schema.dropTable('jobs');
  await knex.schema.dropTable('bookings');
}
