import type { Knex } from 'knex';

/**
 * What a request learns about its caller (the partner's name, currency, pauses, vehicle vocabulary) carries a
 * version, bumped by the database itself whenever any of it changes. A service instance may keep an authenticated
 * key in memory between requests; every request's final statement then asserts, atomically with its writes, that the
 * key is still unrevoked and the version unchanged (assert_key_fresh). If not, the statement fails as a whole
 * (SQLSTATE LT001), nothing is written, and the request is run again against the database. So revocation and every
 * change take effect on the very next request, on every instance, and no code path can forget to bump the version.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table partners add column auth_version bigint not null default 1');
  await knex.raw(`
    create function partners_bump_auth_version() returns trigger language plpgsql as $fn$
    begin
      if (new.name, new.currency, new.paused, new.sandbox_paused) is distinct from (old.name, old.currency, old.paused, old.sandbox_paused) then
        new.auth_version := old.auth_version + 1;
      end if;
      return new;
    end $fn$`);
  await knex.raw(`create trigger partners_auth_version before update on partners for each row execute function partners_bump_auth_version()`);
  await knex.raw(`
    create function vocabulary_bumps_partner() returns trigger language plpgsql as $fn$
    begin
      if tg_op = 'DELETE' then
        update partners set auth_version = auth_version + 1 where partner_id = old.partner_id;
      else
        update partners set auth_version = auth_version + 1 where partner_id = new.partner_id;
      end if;
      return null;
    end $fn$`);
  await knex.raw(
    `create trigger partner_vehicle_codes_bump after insert or update or delete on partner_vehicle_codes for each row execute function vocabulary_bumps_partner()`,
  );
  await knex.raw(`
    create function assert_key_fresh(p_key_id text, p_version bigint) returns boolean language plpgsql as $fn$
    begin
      if not exists (
        select 1 from api_keys k join partners p on p.partner_id = k.partner_id
        where k.key_id = p_key_id and k.revoked_at is null and p.auth_version = p_version
      ) then
        raise exception 'the credentials this request used have changed' using errcode = 'LT001';
      end if;
      return true;
    end $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function assert_key_fresh(text, bigint)');
  await knex.raw('drop trigger partner_vehicle_codes_bump on partner_vehicle_codes');
  await knex.raw('drop function vocabulary_bumps_partner()');
  await knex.raw('drop trigger partners_auth_version on partners');
  await knex.raw('drop function partners_bump_auth_version()');
  await knex.raw('alter table partners drop column auth_version');
}
