import { Model } from 'objection';

/**
 * Shared model settings. The knex instance maps snake_case columns to camelCase (knexSnakeCaseMappers), so models
 * speak camelCase. Every query is given its transaction explicitly: `PartnerModel.query(trx)`.
 */
export class BaseModel extends Model {
  static override get useLimitInFirst(): boolean {
    return true;
  }
}
