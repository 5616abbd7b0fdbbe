import { z } from 'zod';
import { parseTrustProxy } from './parse';

/**
 * The environment variables the service reads, each with its check and default: the zod schema env.ts parses
 * process.env with (a variable that fails its check stops the start, named). What the values become, and the checks
 * that span several variables (OPS_LISTEN against PORT, the pooler, production's secrets): env.ts, `loadConfig`.
 * What each means: docs/operations.md#configuration.
 */
const url = z.string().url();
const decimalRate = z.string().regex(/^\d+(\.\d+)?$/, 'must be a positive decimal such as 0.92');

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL (leave it unset for the embedded database)')
    .optional(),
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL: the PostgreSQL server itself, not the pooler in front of it')
    .optional(),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/)
    .optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  DATA_DIR: z.string().default('./data'),
  PUBLIC_BASE_URL: url.optional(),
  MARKETPLACE_IN_URL: url.optional(),
  MARKETPLACE_URL: url.optional(),
  MARKETPLACE_USER_ID: z.string().optional(),
  MARKETPLACE_PRIVATE_KEY: z.string().optional(),
  MARKETPLACE_CALLBACK_TOKEN: z.string().optional(),
  FLIGHT_STATUS_URL: url.optional(),
  FLIGHT_STATUS_KEY: z.string().optional(),
  FLIGHT_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  OPERATOR_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  OPS_LISTEN: z
    .string()
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be HOST:PORT, e.g. 127.0.0.1:3001 (an IPv6 host in brackets)')
    .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, 'the port must be at most 65535')
    .optional(),
  EMERGENCY_PHONE: z.string().default('+94 11 234 5678'),
  FX_USD_EUR: decimalRate.default('0.92'),
  FX_USD_LKR: decimalRate.default('300'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  RESPONSE_VALIDATION: z.enum(['enforce', 'log', 'off']).optional(),
  IDEMPOTENCY_WAIT_MS: z.coerce.number().int().min(1).max(60000).default(5000),
  SANDBOX_SLOW_MS: z.coerce.number().int().min(0).max(60000).default(10000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600000).default(15000),
  DISPATCH_LOCK_HOURS: z.coerce.number().min(0).max(168).default(6),
  DISPATCH_AUTO: z.enum(['true', 'false']).optional(),
  DISPATCH_AHEAD_HOURS: z.coerce.number().min(1).max(168).default(24),
  DISPATCH_POLL_MS: z.coerce.number().int().min(1000).max(3600000).default(30000),
  AUDIT_RETENTION_MONTHS: z.coerce.number().int().min(1).max(1200).optional(),
  TRAVELLER_DATA_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(90),
  RIDE_TRACK_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(30),
  AUDIT_BODY_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(30),
  FINANCIAL_RETENTION_YEARS: z.coerce.number().int().min(1).max(100).default(10),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60000).default(1000),
  OUTBOX_RETRY_BASE_MS: z.coerce.number().int().min(1).max(600000).default(2000),
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).optional(),
  WEBHOOKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60000).default(15000),
  WEBHOOKS_ALLOWED_PORTS: z
    .string()
    .regex(/^\s*\d{1,5}(?:\s*,\s*\d{1,5})*\s*$/, 'ports separated by commas, e.g. 8443,9443')
    .refine((v) => v.split(',').every((p) => Number(p) >= 1 && Number(p) <= 65535), 'ports are 1 to 65535')
    .optional(),
  TRUST_PROXY: z
    .string()
    .refine(
      (v) => parseTrustProxy(v) !== undefined,
      'must be a hop count (e.g. 1), or a comma-separated list of addresses, CIDR ranges and the names loopback, linklocal, uniquelocal (not "true", which would let every client choose its address)',
    )
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// (or rediss://) URL')
    .optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'letters, digits and _ . : - (at most 64)')
    .default('lanka-transfers'),
  ANON_RATE_PER_S: z.coerce.number().min(0.01).max(100000).default(20),
  ANON_BURST: z.coerce.number().int().min(1).max(1000000).default(200),
  SANDBOX_RATE_PER_S: z.coerce.number().min(0.01).max(100000).default(25),
  SANDBOX_BURST: z.coerce.number().int().min(1).max(1000000).default(250),
  MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1000000).default(1024),
  DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(60000).default(0),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(30000).default(30000),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(20000).default(20000),
  FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().min(500).max(60000).default(5000),
  MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(1).max(1000000).default(128),
});
