import { BaseModel } from './base-model';

export class PartnerModel extends BaseModel {
  static override tableName = 'partners';
  static override idColumn = 'partnerId';
  partnerId!: string;
  name!: string;
  currency!: 'USD' | 'EUR' | 'LKR';
  paused!: boolean;
  sandboxPaused!: boolean;
  authVersion!: string;
  rateLimits!: unknown;
  createdAt!: Date;
}

export class ApiKeyModel extends BaseModel {
  static override tableName = 'api_keys';
  static override idColumn = 'keyId';
  keyId!: string;
  partnerId!: string;
  env!: 'sandbox' | 'production';
  secretHash!: string;
  createdAt!: Date;
  revokedAt!: Date | null;
  lastUsedAt!: Date | null;
}

export class VehicleCodeModel extends BaseModel {
  static override tableName = 'partner_vehicle_codes';
  static override idColumn = ['partnerId', 'code'];
  partnerId!: string;
  code!: string;
  vehicle!: string;
  updatedAt!: Date;
}
