import path from 'node:path';
import { envSchema } from './env-schema';
import { parseListen, parseTrustProxy } from './parse';

/**
 * The only place that reads process.env. Parsed once at start; a bad value stops the process with a message
 * naming the variable. The variables and their checks: env-schema.ts.
 */

/** The secrets a production start refuses when shorter than this. */
export const STRONG_SECRET_LENGTH = 32;

export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  port: number;
  host: string;
  databaseUrl?: string;
  /**
   * The PostgreSQL server itself when DATABASE_URL is a connection pooler (DATABASE_DIRECT_URL): migrations and
   * anything that needs a session of its own use it. Absent: DATABASE_URL is direct.
   */
  databaseDirectUrl?: string;
  /**
   * DATABASE_URL goes through a transaction pooler (DATABASE_DIRECT_URL names another address): consecutive
   * transactions may run on different server sessions, so nothing may rely on a session's state (no named prepared
   * statements, no session SET).
   */
  databasePooled: boolean;
  databaseSchema?: string;
  databasePoolMax: number;
  dataDir: string;
  publicBaseUrl: string;
  marketplace: {
    inUrl: string;
    url?: string;
    userId?: string;
    privateKey?: string;
    callbackToken?: string;
  };
  /** The flight-status provider (docs/operations.md#flight-status-provider); without a URL no flight is polled. */
  flightStatus: { url?: string; key?: string; pollMs: number };
  operatorToken?: string;
  /**
   * OPS_LISTEN: the operator API and console are served on this address only (a second listener), and the main
   * port no longer serves /ops. Unset: one port serves everything.
   */
  opsListen?: { host: string; port: number };
  emergencyPhone: string;
  /** USD → currency, as decimal strings (money is never a float). */
  fxFromUsd: Record<'USD' | 'EUR' | 'LKR', string>;
  logLevel: string;
  /**
   * enforce: a response that breaks its contract becomes a 500 (dev, test); log: it is logged and sent; off: not
   * checked (production: the tests enforce the contract, the hot path does not pay for it).
   */
  responseValidation: 'enforce' | 'log' | 'off';
  /**
   * How long a request waits for a row another request holds (the same Idempotency-Key in flight, above all) before
   * answering 409 in_progress or 503: the database session's lock_timeout.
   */
  idempotencyWaitMs: number;
  /** How long `Sandbox-Simulate: slow` holds its answer. */
  sandboxSlowMs: number;
  /** No statement runs longer: past it the request is answered 503. */
  databaseStatementTimeoutMs: number;
  /** A plan never moves an assignment whose pickup is closer than this (hours): the driver may be on the way. */
  dispatchLockHours: number;
  /**
   * The automatic dispatch pass (DISPATCH_AUTO): plans and applies, every `pollMs`, each day until `aheadHours` ahead
   * that has jobs without a driver. Off by default, on by default for the embedded demo (`npm start` without
   * DATABASE_URL), so its demo day is dispatched.
   */
  dispatchAuto: { enabled: boolean; aheadHours: number; pollMs: number };
  /** Audit months older than this are dropped by the retention pass; unset keeps the audit log forever. */
  auditRetentionMonths?: number;
  /**
   * The privacy retention pass (domain/privacy/retention.ts), by kind of data: a traveller's personal data is erased
   * `travellerDataDays` after the ride ends or the booking (or order) is cancelled; the ride's GPS track is deleted
   * after `rideTrackDays`; the audit log's request and response bodies become their digest after `auditBodyDays`;
   * the erased booking's (or order's) financial lines are deleted after `financialYears`.
   */
  privacyRetention: { travellerDataDays: number; rideTrackDays: number; auditBodyDays: number; financialYears: number };
  /** The outbox worker: how often it looks for due messages, and the base of its exponential backoff. */
  outbox: { pollMs: number; retryBaseMs: number };
  webhooks: {
    /**
     * Sandbox endpoints may target private and loopback addresses (local development, tests): by default everywhere
     * but in production (NODE_ENV=production), where WEBHOOKS_ALLOW_PRIVATE_TARGETS=true allows it. Production
     * endpoints never may, whatever this says; link-local, multicast and reserved addresses are refused for both.
     */
    allowPrivateTargets: boolean;
    /** One delivery attempt: connect, send and the receiver's answer. */
    timeoutMs: number;
    /**
     * The ports a public target may use: in production 443, 80 and WEBHOOKS_ALLOWED_PORTS (so webhooks cannot probe
     * other services' ports); null, any port (outside production). Private targets the deployment allows keep any.
     */
    allowedPorts: readonly number[] | null;
  };
  /** Body size limit of every surface. */
  maxBodyBytes: number;
  /** Express's `trust proxy`: who may name the client in X-Forwarded-For (rate limits, the operator lockout, the audit log). */
  trustProxy: false | number | string[];
  /** Requests without a valid credential, per client address: a token bucket. */
  anonymousLimit: { requestsPerSecond: number; burst: number };
  /** REDIS_URL: the anonymous limit shared by every instance there (absent: each instance keeps its own). */
  redisUrl?: string;
  /** REDIS_KEY_PREFIX: what this deployment's keys in Redis start with (several deployments may share one Redis). */
  redisKeyPrefix: string;
  /** A sandbox key's limit where an operator has set none (production has none by default). */
  sandboxLimit: { requestsPerSecond: number; burst: number };
  /** Connections held at once per listener; more are closed at accept. */
  maxConnections: number;
  /** Connections held at once per client address (an IPv6 /64), except from a trusted proxy (TRUST_PROXY). */
  maxConnectionsPerClient: number;
  /** A connection that sends no byte within this time of accept is closed. */
  firstByteTimeoutMs: number;
  /**
   * On SIGTERM, /readyz answers 503 for this long while requests are still served, so that a load balancer's health
   * checks take the instance out before it stops accepting (DRAIN_DELAY_MS; 0: stop at once).
   */
  drainDelayMs: number;
  /** A request's head must arrive within headersTimeoutMs, and its body within requestTimeoutMs after the head. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means unset (CI and shells often export VAR= to clear one).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.OPS_LISTEN && e.PORT !== 0 && parseListen(e.OPS_LISTEN).port === e.PORT) {
    throw new ConfigError(`Invalid configuration:\n  OPS_LISTEN: must use another port than PORT (${e.PORT}): the operator surface gets a listener of its own`);
  }
  const pooled = !!e.DATABASE_DIRECT_URL && e.DATABASE_DIRECT_URL !== e.DATABASE_URL;
  if (e.DATABASE_DIRECT_URL && !e.DATABASE_URL) {
    throw new ConfigError('Invalid configuration:\n  DATABASE_DIRECT_URL: only with DATABASE_URL (the pooler the service connects through)');
  }
  if (pooled && e.DATABASE_SCHEMA) {
    throw new ConfigError(
      'Invalid configuration:\n  DATABASE_SCHEMA: sets search_path per session, which a transaction pooler does not keep: ' +
        "behind a pooler use a database of its own, or the role's search_path (alter role … set search_path)",
    );
  }
  if (e.NODE_ENV === 'production') {
    const problems: string[] = [];
    if (!e.OPERATOR_TOKEN)
      problems.push('  OPERATOR_TOKEN: is required in production (the bootstrap admin; at least 32 characters, e.g. op_ and 40 random letters and digits)');
    for (const name of ['OPERATOR_TOKEN', 'MARKETPLACE_PRIVATE_KEY', 'MARKETPLACE_CALLBACK_TOKEN'] as const) {
      const v = e[name];
      if (v && v.length < STRONG_SECRET_LENGTH) problems.push(`  ${name}: is ${v.length} characters; production needs at least ${STRONG_SECRET_LENGTH}`);
    }
    if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, '');
  return Object.freeze({
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    databasePooled: pooled,
    databaseSchema: e.DATABASE_SCHEMA,
    databasePoolMax: e.DATABASE_POOL_MAX,
    dataDir: e.DATA_DIR.startsWith('memory://') ? e.DATA_DIR : path.resolve(e.DATA_DIR),
    publicBaseUrl,
    marketplace: Object.freeze({
      inUrl: (e.MARKETPLACE_IN_URL ?? `${publicBaseUrl}/marketplace`).replace(/\/$/, ''),
      url: e.MARKETPLACE_URL?.replace(/\/$/, ''),
      userId: e.MARKETPLACE_USER_ID,
      privateKey: e.MARKETPLACE_PRIVATE_KEY,
      callbackToken: e.MARKETPLACE_CALLBACK_TOKEN,
    }),
    flightStatus: Object.freeze({ url: e.FLIGHT_STATUS_URL?.replace(/\/$/, ''), key: e.FLIGHT_STATUS_KEY, pollMs: e.FLIGHT_POLL_MS }),
    operatorToken: e.OPERATOR_TOKEN,
    opsListen: e.OPS_LISTEN ? parseListen(e.OPS_LISTEN) : undefined,
    emergencyPhone: e.EMERGENCY_PHONE,
    fxFromUsd: Object.freeze({ USD: '1', EUR: e.FX_USD_EUR, LKR: e.FX_USD_LKR }),
    logLevel: e.LOG_LEVEL ?? (e.NODE_ENV === 'test' ? 'silent' : 'info'),
    responseValidation: e.RESPONSE_VALIDATION ?? (e.NODE_ENV === 'production' ? 'off' : 'enforce'),
    idempotencyWaitMs: e.IDEMPOTENCY_WAIT_MS,
    sandboxSlowMs: e.SANDBOX_SLOW_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    dispatchLockHours: e.DISPATCH_LOCK_HOURS,
    dispatchAuto: Object.freeze({
      enabled: e.DISPATCH_AUTO === undefined ? !e.DATABASE_URL && e.NODE_ENV !== 'production' && e.NODE_ENV !== 'test' : e.DISPATCH_AUTO === 'true',
      aheadHours: e.DISPATCH_AHEAD_HOURS,
      pollMs: e.DISPATCH_POLL_MS,
    }),
    auditRetentionMonths: e.AUDIT_RETENTION_MONTHS,
    privacyRetention: Object.freeze({
      travellerDataDays: e.TRAVELLER_DATA_RETENTION_DAYS,
      rideTrackDays: e.RIDE_TRACK_RETENTION_DAYS,
      auditBodyDays: e.AUDIT_BODY_RETENTION_DAYS,
      financialYears: e.FINANCIAL_RETENTION_YEARS,
    }),
    outbox: Object.freeze({ pollMs: e.OUTBOX_POLL_MS, retryBaseMs: e.OUTBOX_RETRY_BASE_MS }),
    webhooks: Object.freeze({
      allowPrivateTargets: e.WEBHOOKS_ALLOW_PRIVATE_TARGETS === undefined ? e.NODE_ENV !== 'production' : e.WEBHOOKS_ALLOW_PRIVATE_TARGETS === 'true',
      timeoutMs: e.WEBHOOKS_TIMEOUT_MS,
      allowedPorts:
        e.NODE_ENV === 'production'
          ? Object.freeze([...new Set([443, 80, ...(e.WEBHOOKS_ALLOWED_PORTS ? e.WEBHOOKS_ALLOWED_PORTS.split(',').map(Number) : [])])])
          : null,
    }),
    maxBodyBytes: 64 * 1024,
    trustProxy: parseTrustProxy(e.TRUST_PROXY)!,
    anonymousLimit: Object.freeze({ requestsPerSecond: e.ANON_RATE_PER_S, burst: e.ANON_BURST }),
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    sandboxLimit: Object.freeze({ requestsPerSecond: e.SANDBOX_RATE_PER_S, burst: e.SANDBOX_BURST }),
    maxConnections: e.MAX_CONNECTIONS,
    drainDelayMs: e.DRAIN_DELAY_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    maxConnectionsPerClient: e.MAX_CONNECTIONS_PER_CLIENT,
    firstByteTimeoutMs: e.FIRST_BYTE_TIMEOUT_MS,
  });
}
