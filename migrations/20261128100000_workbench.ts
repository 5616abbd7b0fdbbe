import type { Knex } from 'knex';

/**
 * The partner's workbench.
 *
 * - **Webhooks in order.** A webhook delivery (outbox row of kind `webhook`) carries its event's booking and
 *   sequence, so the claim can tell in one indexed probe whether an earlier event of the same booking is still
 *   pending for the same endpoint (it then waits: see outbox-repository's claim).
 * - **The partner's request log** reads the audit log: its own inbound requests on the transfers surface, per
 *   partner and environment, newest first; and a booking's timeline finds the requests that made or named a booking
 *   (its path, or the booking_ref it answered), its events, and their deliveries' attempts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table outbox add column booking_ref text, add column sequence integer');
  await knex.raw(`
    update outbox o set booking_ref = e.booking_ref, sequence = e.sequence
    from webhook_events e where e.event_id = o.event_id and e.booking_ref is not null`);
  await knex.raw(`
    create index outbox_webhook_order_index on outbox (endpoint_id, booking_ref, sequence, id)
    where status = 'pending' and booking_ref is not null`);
  await knex.raw(`create index webhook_events_booking_index on webhook_events (partner_id, env, booking_ref, sequence) where booking_ref is not null`);
  await knex.raw(`create index audit_log_partner_requests_index on audit_log (partner_id, env, id) where surface = 'transfers' and direction = 'inbound'`);
  await knex.raw(`
    create index audit_log_booking_ref_index on audit_log ((response_body ->> 'booking_ref'))
    where surface = 'transfers' and direction = 'inbound' and (response_body ->> 'booking_ref') is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index audit_log_booking_ref_index');
  await knex.raw('drop index audit_log_partner_requests_index');
  await knex.raw('drop index webhook_events_booking_index');
  await knex.raw('drop index outbox_webhook_order_index');
  await knex.raw('alter table outbox drop column booking_ref, drop column sequence');
}
