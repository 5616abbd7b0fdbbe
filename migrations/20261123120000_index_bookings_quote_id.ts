import type { Knex } from 'knex';

/** The retention pass asks "is this quote booked?" for every expired quote: an index answers it. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index bookings_quote_id_index on bookings (quote_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index bookings_quote_id_index');
}
