import { sql, type Sql } from '../database';

export interface TermsRecord {
  partnerId: string;
  version: number;
  effectiveFrom: Date;
  cancellationFees: Array<{ hours_before: number; percent: number }>;
  noShowPercent: number;
  priceAdjustmentPercent: number;
  createdBy: string | null;
}

const COLUMNS = `t.partner_id as "partnerId", t.version, t.effective_from as "effectiveFrom", t.cancellation_fees as "cancellationFees",
  t.no_show_percent as "noShowPercent", t.price_adjustment_percent::float8 as "priceAdjustmentPercent", t.created_by as "createdBy"`;

/** The terms of a partner in force: the version partners.terms_version names (undefined: no such partner). */
const current = sql(
  `select ${COLUMNS} from partners p join partner_terms t on t.partner_id = p.partner_id and t.version = p.terms_version where p.partner_id = $1`,
);

export async function findCurrentTerms(db: Sql, partnerId: string): Promise<TermsRecord | undefined> {
  return (await db.query<TermsRecord>(current, [partnerId]))[0];
}

const history = sql(`select ${COLUMNS} from partner_terms t where t.partner_id = $1 order by t.version desc limit $2`);

export async function listTermsVersions(db: Sql, partnerId: string, limit: number): Promise<TermsRecord[]> {
  return db.query<TermsRecord>(history, [partnerId, limit]);
}

/**
 * A new version of a partner's terms, in force from `at`: the partner's row is updated first (its lock orders
 * concurrent changes, and its auth_version moves, so every instance prices the next quote with them). Undefined
 * when there is no such partner.
 */
const insertVersion = sql(`
  with bumped as (update partners set terms_version = terms_version + 1 where partner_id = $1 returning partner_id, terms_version)
  insert into partner_terms (partner_id, version, effective_from, cancellation_fees, no_show_percent, price_adjustment_percent, created_by, created_at)
  select partner_id, terms_version, $2, $3::jsonb, $4, $5, $6, $2 from bumped
  returning partner_id as "partnerId", version, effective_from as "effectiveFrom", cancellation_fees as "cancellationFees",
    no_show_percent as "noShowPercent", price_adjustment_percent::float8 as "priceAdjustmentPercent", created_by as "createdBy"`);

export async function insertTermsVersion(
  tx: Sql,
  partnerId: string,
  t: Pick<TermsRecord, 'cancellationFees' | 'noShowPercent' | 'priceAdjustmentPercent' | 'createdBy'>,
  at: Date,
): Promise<TermsRecord | undefined> {
  return (
    await tx.query<TermsRecord>(insertVersion, [partnerId, at, JSON.stringify(t.cancellationFees), t.noShowPercent, t.priceAdjustmentPercent, t.createdBy])
  )[0];
}
