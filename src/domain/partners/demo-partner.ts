import type { Knex } from 'knex';
import { countPartners, createPartner } from './partners';
import { issueKey } from './api-keys';

/**
 * On the first start of an empty database: a sandbox partner and its test key, so `npm start` is usable at once.
 * An advisory lock keeps two instances starting together from both creating one.
 */
export async function ensureDemoPartner(db: Knex) {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(4242001)');
    if ((await countPartners(trx)) > 0) return null;
    const partner = await createPartner(trx, { name: 'Demo Travel', currency: 'USD' });
    const key = await issueKey(trx, partner.partner_id, 'sandbox');
    return { ...partner, key: key.key };
  });
}
