import type { Database } from '../../data/database';
import { countPartners, lockFirstStart } from '../../data/repositories/partners-repository';
import { createPartner } from './partners';
import { issueKey } from './api-keys';
import { seedDemoFleet } from '../fleet/demo-fleet';

/**
 * On the first start of an empty database: a sandbox partner and its test key, so `npm start` is usable at once,
 * and on the embedded database a demo fleet.
 * An advisory lock keeps two instances starting together from both creating one.
 */
export async function ensureDemoPartner(db: Database, opts: { withFleet: boolean; now: Date }) {
  return db.transaction(async (tx) => {
    await lockFirstStart(tx);
    if ((await countPartners(tx)) > 0) return null;
    const partner = await createPartner(tx, { name: 'Demo Travel', currency: 'USD' });
    const key = await issueKey(tx, partner.partner_id, 'sandbox');
    // The embedded demo also gets a small fleet to dispatch (a real database starts with the operator's own).
    const fleet = opts.withFleet ? await seedDemoFleet(tx, opts.now) : null;
    return { ...partner, key: key.key, fleet };
  });
}
