import type { Database } from '../../data/database';
import { countPartners, lockFirstStart } from '../../data/repositories/partners-repository';
import { createPartner } from './partners';
import { issueKey } from './api-keys';

/**
 * On the first start of an empty database: a sandbox partner and its test key, so `npm start` is usable at once.
 * An advisory lock keeps two instances starting together from both creating one.
 */
export async function ensureDemoPartner(db: Database) {
  return db.transaction(async (tx) => {
    await lockFirstStart(tx);
    if ((await countPartners(tx)) > 0) return null;
    const partner = await createPartner(tx, { name: 'Demo Travel', currency: 'USD' });
    const key = await issueKey(tx, partner.partner_id, 'sandbox');
    return { ...partner, key: key.key };
  });
}
