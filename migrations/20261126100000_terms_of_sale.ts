import type { Knex } from 'knex';

const HOLDING = `('confirmed','driver_assigned')`;
const BOOKING_EVENTS = `'booking.confirmed','booking.driver_assigned','booking.cancelled','booking.completed','booking.no_show'`;
/** The default terms (docs/partner-guide.md#terms): restated here because a migration never changes once applied. */
const DEFAULT_FEES = `'[{"hours_before": 12, "percent": 50}, {"hours_before": 2, "percent": 100}]'::jsonb`;
const DEFAULT_TERMS = `jsonb_build_object('version', 1, 'cancellation_fees', ${DEFAULT_FEES}, 'no_show_percent', 100, 'price_adjustment_percent', 0)`;

/**
 * The terms of sale.
 *
 * - **Partner terms, versioned.** `partner_terms` keeps every version a partner has had; `partners.terms_version`
 *   names the one in force. Every partner has version 1 (the defaults) from its creation, by trigger, whatever code
 *   created it. The version is part of what a request authenticates against (auth_version), so new terms price the
 *   partner's very next quote on every instance.
 * - **Quotes and bookings keep the terms that priced them** (`terms`: version, fee tiers, no-show percent, price
 *   adjustment), so a later change of terms never changes a sale. A change quote is a quote with `booking_ref`
 *   set; `applied_at` marks the one change it was applied as. A quote's seats (`extras`, priced) are the same for
 *   every offer of it.
 * - **Bookings** gain `version` (amendments and changes count it; the ETag), children, extras (seats, priced),
 *   notes for the driver and the cancellation fee charged.
 * - **Jobs** follow: children, extras (`{"child_seat": 1}`), notes, and why an assignment was released by a change.
 * - **Webhooks** gain `booking.amended`; an endpoint subscribed to every event gets it too.
 * - **Vehicles** carry equipment (`{"child_seat": 2}`), and the fleet's capacity counts it: fleet_room says whether
 *   one more job of a class, needing these seats, fits a window (optionally leaving one job out: the job a change
 *   moves); fleet_has_room is the same under the class's lock, and fleet_free_classes what quoting may offer (in
 *   place of fleet_availability).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table partner_terms (
      partner_id text not null references partners (partner_id),
      version integer not null check (version >= 1),
      effective_from timestamptz not null,
      cancellation_fees jsonb not null,
      no_show_percent integer not null check (no_show_percent between 0 and 100),
      price_adjustment_percent numeric(5,2) not null check (price_adjustment_percent between -90 and 100),
      created_by text,
      created_at timestamptz not null,
      primary key (partner_id, version)
    )`);
  await knex.raw('alter table partners add column terms_version integer not null default 1');
  await knex.raw(`
    insert into partner_terms (partner_id, version, effective_from, cancellation_fees, no_show_percent, price_adjustment_percent, created_at)
    select partner_id, 1, created_at, ${DEFAULT_FEES}, 100, 0, created_at from partners`);
  await knex.raw(`
    create function partners_default_terms() returns trigger language plpgsql as $fn$
    begin
      insert into partner_terms (partner_id, version, effective_from, cancellation_fees, no_show_percent, price_adjustment_percent, created_at)
      values (new.partner_id, 1, new.created_at, ${DEFAULT_FEES}, 100, 0, new.created_at)
      on conflict do nothing;
      return null;
    end $fn$`);
  await knex.raw('create trigger partners_default_terms after insert on partners for each row execute function partners_default_terms()');
  await knex.raw(`
    create or replace function partners_bump_auth_version() returns trigger language plpgsql as $fn$
    begin
      if (new.name, new.currency, new.paused, new.sandbox_paused, new.rate_limits, new.terms_version)
         is distinct from (old.name, old.currency, old.paused, old.sandbox_paused, old.rate_limits, old.terms_version) then
        new.auth_version := old.auth_version + 1;
      end if;
      return new;
    end $fn$`);

  await knex.raw(
    `alter table quotes add column terms jsonb, add column extras jsonb not null default '[]', add column booking_ref text, add column applied_at timestamptz`,
  );
  await knex.raw(`update quotes set terms = ${DEFAULT_TERMS}`);
  await knex.raw('alter table quotes alter column terms set not null');
  await knex.raw('create index quotes_booking_ref_index on quotes (booking_ref) where booking_ref is not null');

  await knex.raw(`
    alter table bookings
      add column version integer not null default 1,
      add column terms jsonb,
      add column children integer not null default 0,
      add column extras jsonb not null default '[]',
      add column notes text,
      add column cancellation_fee_minor bigint`);
  await knex.raw(`update bookings set terms = ${DEFAULT_TERMS}`);
  await knex.raw('alter table bookings alter column terms set not null');
  await knex.raw(`alter table bookings add constraint bookings_cancellation_fee_check check (cancellation_fee_minor is null or status = 'cancelled')`);
  // Statements read a partner's bookings by pickup time.
  await knex.raw('create index bookings_statement_index on bookings (partner_id, env, pickup_at)');

  await knex.raw(`
    alter table jobs
      add column children integer not null default 0,
      add column extras jsonb not null default '{}',
      add column notes text,
      add column released_reason text,
      add column released_at timestamptz`);
  await knex.raw(`
    alter table vehicles add column equipment jsonb not null default '{}'
      constraint vehicles_equipment_check check (equipment - array['infant_seat','child_seat','booster_seat'] = '{}'::jsonb)`);

  await knex.raw(`
    alter table webhook_endpoints drop constraint webhook_endpoints_events_check,
      add constraint webhook_endpoints_events_check check (cardinality(events) > 0 and events <@ array[${BOOKING_EVENTS},'booking.amended'])`);
  await knex.raw(`
    alter table webhook_events drop constraint webhook_events_type_check,
      add constraint webhook_events_type_check check (type in (${BOOKING_EVENTS},'booking.amended','ping'))`);
  await knex.raw(`update webhook_endpoints set events = events || array['booking.amended'] where events @> array[${BOOKING_EVENTS}]`);

  await knex.raw(`
    create function fleet_busiest(p_code text, p_from timestamptz, p_to timestamptz, p_kind text, p_except bigint) returns integer
    language sql stable as $fn$
      select coalesce(max(running), 0)::int from (
        select (select count(*) from jobs j
                where j.held_code = p_code and j.status in ${HOLDING} and j.slot @> instants.t
                  and (p_except is null or j.job_id <> p_except)
                  and (p_kind is null or coalesce((j.extras->>p_kind)::int, 0) > 0)) as running
        from (
          select p_from as t
          union all
          select lower(j.slot) from jobs j
          where j.held_code = p_code and j.status in ${HOLDING} and j.slot && tstzrange(p_from, p_to, '[)') and lower(j.slot) > p_from
        ) instants
      ) counted
    $fn$`);
  await knex.raw(`
    create function fleet_room(p_code text, p_from timestamptz, p_to timestamptz, p_needs jsonb, p_except bigint) returns boolean
    language plpgsql stable as $fn$
    declare
      vehicles_active integer;
      need record;
      equipped integer;
    begin
      if not exists (select 1 from vehicles where active) then
        return true;
      end if;
      select count(*) into vehicles_active from vehicles where active and fleet_code = p_code;
      if vehicles_active = 0 or fleet_busiest(p_code, p_from, p_to, null, p_except) >= vehicles_active then
        return false;
      end if;
      -- Each kind of seat asked for: the vehicles of the class fitted with enough of it outnumber the jobs that need it.
      for need in select key as kind, value::int as quantity from jsonb_each_text(coalesce(p_needs, '{}'::jsonb)) loop
        continue when need.quantity <= 0;
        select count(*) into equipped from vehicles
          where active and fleet_code = p_code and coalesce((equipment->>need.kind)::int, 0) >= need.quantity;
        if equipped = 0 or fleet_busiest(p_code, p_from, p_to, need.kind, p_except) >= equipped then
          return false;
        end if;
      end loop;
      return true;
    end $fn$`);
  await knex.raw('drop function fleet_has_room(text, timestamptz, timestamptz)');
  await knex.raw(`
    create function fleet_has_room(p_code text, p_from timestamptz, p_to timestamptz, p_needs jsonb default '{}', p_except bigint default null) returns boolean
    language plpgsql volatile as $fn$
    begin
      if not exists (select 1 from vehicles where active) then
        return true;
      end if;
      perform pg_advisory_xact_lock(hashtext('fleet:' || p_code));
      return fleet_room(p_code, p_from, p_to, p_needs, p_except);
    end $fn$`);
  // What quoting asked before seats counted; fleet_free_classes answers it now.
  await knex.raw('drop function fleet_availability(timestamptz, timestamptz)');
  await knex.raw(`
    create function fleet_free_classes(p_from timestamptz, p_to timestamptz, p_needs jsonb, p_except bigint) returns setof text
    language sql stable as $fn$
      select c.fleet_code from (select distinct fleet_code from vehicles where active) c
      where fleet_room(c.fleet_code, p_from, p_to, p_needs, p_except)
    $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function fleet_free_classes(timestamptz, timestamptz, jsonb, bigint)');
  await knex.raw(`
    create function fleet_availability(p_from timestamptz, p_to timestamptz)
    returns table (fleet_code text, vehicles integer, busiest integer)
    language sql stable as $fn$
      select v.fleet_code, v.n::int,
        coalesce((
          select max((select count(*) from jobs j2 where j2.held_code = v.fleet_code and j2.status in ${HOLDING} and j2.slot @> i.t))
          from (
            select p_from as t
            union all
            select lower(j.slot) from jobs j
            where j.held_code = v.fleet_code and j.status in ${HOLDING} and j.slot && tstzrange(p_from, p_to, '[)') and lower(j.slot) > p_from
          ) i
        ), 0)::int
      from (select fleet_code, count(*) as n from vehicles where active group by fleet_code) v
    $fn$`);
  await knex.raw('drop function fleet_has_room(text, timestamptz, timestamptz, jsonb, bigint)');
  await knex.raw('drop function fleet_room(text, timestamptz, timestamptz, jsonb, bigint)');
  await knex.raw('drop function fleet_busiest(text, timestamptz, timestamptz, text, bigint)');
  await knex.raw(`
    create function fleet_has_room(p_code text, p_from timestamptz, p_to timestamptz) returns boolean
    language plpgsql volatile as $fn$
    declare
      vehicles_active integer;
      busiest integer;
    begin
      if not exists (select 1 from vehicles where active) then
        return true;
      end if;
      perform pg_advisory_xact_lock(hashtext('fleet:' || p_code));
      select count(*) into vehicles_active from vehicles where active and fleet_code = p_code;
      if vehicles_active = 0 then
        return false;
      end if;
      select coalesce(max(running), 0) into busiest from (
        select (select count(*) from jobs j
                where j.held_code = p_code and j.status in ${HOLDING} and j.slot @> instants.t) as running
        from (
          select p_from as t
          union all
          select lower(j.slot) from jobs j
          where j.held_code = p_code and j.status in ${HOLDING} and j.slot && tstzrange(p_from, p_to, '[)') and lower(j.slot) > p_from
        ) instants
      ) counted;
      return busiest < vehicles_active;
    end $fn$`);
  await knex.raw(`update webhook_endpoints set events = array_remove(events, 'booking.amended')`);
  await knex.raw(`delete from webhook_events where type = 'booking.amended'`);
  await knex.raw(`
    alter table webhook_endpoints drop constraint webhook_endpoints_events_check,
      add constraint webhook_endpoints_events_check check (cardinality(events) > 0 and events <@ array[${BOOKING_EVENTS}])`);
  await knex.raw(
    `alter table webhook_events drop constraint webhook_events_type_check, add constraint webhook_events_type_check check (type in (${BOOKING_EVENTS},'ping'))`,
  );
  await knex.raw('alter table vehicles drop column equipment');
  await knex.raw('alter table jobs drop column children, drop column extras, drop column notes, drop column released_reason, drop column released_at');
  await knex.raw('drop index bookings_statement_index');
  await knex.raw('alter table bookings drop constraint bookings_cancellation_fee_check');
  await knex.raw(
    'alter table bookings drop column version, drop column terms, drop column children, drop column extras, drop column notes, drop column cancellation_fee_minor',
  );
  await knex.raw('drop index quotes_booking_ref_index');
  await knex.raw('alter table quotes drop column terms, drop column extras, drop column booking_ref, drop column applied_at');
  await knex.raw(`
    create or replace function partners_bump_auth_version() returns trigger language plpgsql as $fn$
    begin
      if (new.name, new.currency, new.paused, new.sandbox_paused, new.rate_limits)
         is distinct from (old.name, old.currency, old.paused, old.sandbox_paused, old.rate_limits) then
        new.auth_version := old.auth_version + 1;
      end if;
      return new;
    end $fn$`);
  await knex.raw('drop trigger partners_default_terms on partners');
  await knex.raw('drop function partners_default_terms()');
  await knex.raw('alter table partners drop column terms_version');
  await knex.raw('drop table partner_terms');
}
