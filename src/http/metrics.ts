import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What a scrape reads from the database, once per scrape (see data/repositories/health-repository.ts). */
export interface OperationalSample {
  /** Unset when the database could not be read: the gauges are then absent from the scrape, not 0. */
  figures?: {
    outbox: Array<{ channel: string; pending: number; oldestSeconds: number; failed: number }>;
    webhookEndpointsDisabled: number;
    marketplaceConfirmationOldestSeconds: number;
    unassigned: { '12h': number; '24h': number; '48h': number };
    planDeadheadKm: { today?: number; tomorrow?: number };
    /** When the privacy retention pass last finished with nothing left due (Unix seconds; 0: never). */
    privacyRetentionFinishedSeconds: number;
  };
  ready: boolean;
  pool: { used: number; free: number; pending: number };
}

/**
 * The service's Prometheus metrics (prom-client), one registry per running instance (tests run several in one
 * process). Request counters are updated by the pipeline as requests finish; gauges about the database are read
 * at scrape time, in one round trip, by the `sample` function the composition root hands in.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by surface, contract operation (or route miss) and status.',
    labelNames: ['surface', 'operation', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being sent (audit row committed), by surface and operation.',
    labelNames: ['surface', 'operation'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly auditWriteFailures = new Counter({
    name: 'audit_write_failures_total',
    help: 'Requests whose audit row (or the write committed with it) could not be written; the change was rolled back.',
    registers: [this.registry],
  });
  readonly connectionsDropped = new Counter({
    name: 'http_connections_dropped_total',
    help: 'Connections closed by the server before any answer, by reason: idle (no byte within FIRST_BYTE_TIMEOUT_MS of accept), per_client (over MAX_CONNECTIONS_PER_CLIENT from one address or IPv6 /64), listener_full (over MAX_CONNECTIONS).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly rateLimitStoreUp = new Gauge({
    name: 'rate_limit_store_up',
    help: 'With REDIS_URL: 1 while the shared store of the anonymous limit answers, 0 while this instance decides alone (its own buckets). Absent without REDIS_URL.',
    labelNames: ['store'] as const,
    registers: [this.registry],
  });
  readonly rateLimitFallbacks = new Counter({
    name: 'rate_limit_store_fallbacks_total',
    help: 'Anonymous requests limited by this instance alone because the shared store (Redis) was not answering.',
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'rate_limited_total',
    help: 'Requests answered 429, by scope: anonymous (per client address) or partner (a partner limit).',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });
  private readonly outboxPending = new Gauge({
    name: 'outbox_pending',
    help: 'Messages waiting to be delivered, by channel.',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  private readonly outboxOldest = new Gauge({
    name: 'outbox_oldest_pending_seconds',
    help: 'Age of the oldest message waiting to be delivered, by channel (0 when none).',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  private readonly outboxFailed = new Gauge({
    name: 'outbox_failed',
    help: 'Messages given up on (out of attempts, or refused for good) and not retried since, by channel: a confirmation or an event that never arrived.',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  private readonly endpointsDisabled = new Gauge({
    name: 'webhook_endpoints_disabled',
    help: 'Partner webhook endpoints disabled (by failures or an operator).',
    registers: [this.registry],
  });
  private readonly confirmationOldest = new Gauge({
    name: 'marketplace_confirmation_oldest_pending_seconds',
    help: 'Age of the oldest marketplace order accepted but not yet confirmed to the marketplace (the deadline is 60 minutes).',
    registers: [this.registry],
  });
  private readonly unassigned = new Gauge({
    name: 'dispatch_jobs_unassigned',
    help: 'Jobs ahead without a driver, whose pickup is within `within` (12h, 24h, 48h)',
    labelNames: ['within'],
    registers: [this.registry],
  });
  private readonly planDeadhead = new Gauge({
    name: 'dispatch_plan_deadhead_km',
    help: 'Empty km in the newest dispatch plan of the day (today, tomorrow; Sri Lanka), absent when the day has none',
    labelNames: ['day'],
    registers: [this.registry],
  });
  private readonly planDuration = new Histogram({
    name: 'dispatch_plan_duration_seconds',
    help: 'How long the automatic dispatch pass took to plan and apply a day',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly privacyRows = new Counter({
    name: 'privacy_retention_rows_total',
    help: "Rows the privacy retention pass changed, by kind: bookings_erased, orders_erased, positions (deleted), last_positions (forgotten), audit_bodies (replaced by their digest), data_keys (destroyed), bookings_deleted, orders_deleted (financial retention), agent_confirmations (AI agents' tokens, an hour after expiry).",
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly privacyDuration = new Histogram({
    name: 'privacy_retention_duration_seconds',
    help: 'How long a privacy retention pass took (on the instance that held its lease)',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  private readonly privacyFailures = new Counter({
    name: 'privacy_retention_failures_total',
    help: 'Privacy retention passes that failed on this instance (the next pass tries again)',
    registers: [this.registry],
  });
  private readonly privacyLastSuccess = new Gauge({
    name: 'privacy_retention_last_success_timestamp_seconds',
    help: 'When a privacy retention pass (on any instance) last finished with nothing left due, in Unix seconds; 0 when none has yet',
    registers: [this.registry],
  });
  private readonly ready = new Gauge({
    name: 'service_ready',
    help: '1 when the database answers and its migrations are current, else 0.',
    registers: [this.registry],
  });
  private readonly pool = new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections, by state (used, free, pending acquires).',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Each (surface, operation, status)'s bound children, made once: the label objects are built and validated once per
   * series instead of on every request (prom-client still hashes them on each call).
   */
  private readonly series = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();

  observeRequest(surface: string, operation: string | undefined, status: number, seconds: number): void {
    const op = operation ?? 'none';
    const key = `${surface} ${op} ${status}`;
    let s = this.series.get(key);
    if (!s) {
      s = { count: this.requests.labels({ surface, operation: op, status: String(status) }), time: this.duration.labels({ surface, operation: op }) };
      this.series.set(key, s);
    }
    s.count.inc();
    s.time.observe(seconds);
  }

  /** One day planned and applied by the automatic pass. */
  observePlan(seconds: number): void {
    this.planDuration.observe(seconds);
  }

  /** What the privacy retention pass tells (domain/privacy/retention.ts): rows as they commit, each pass, each failure. */
  readonly privacyRetention = {
    rows: (kind: string, n: number): void => this.privacyRows.inc({ kind }, n),
    passed: (pass: { seconds: number }): void => this.privacyDuration.observe(pass.seconds),
    failed: (): void => this.privacyFailures.inc(),
  };

  /** The text of one scrape, with the database's figures as `sample` reads them now. */
  async scrape(sample: () => Promise<OperationalSample>): Promise<string> {
    const s = await sample();
    for (const g of [
      this.outboxPending,
      this.outboxOldest,
      this.outboxFailed,
      this.endpointsDisabled,
      this.confirmationOldest,
      this.unassigned,
      this.planDeadhead,
      this.privacyLastSuccess,
    ])
      g.reset();
    if (s.figures) {
      for (const c of s.figures.outbox) {
        this.outboxPending.set({ channel: c.channel }, c.pending);
        this.outboxFailed.set({ channel: c.channel }, c.failed);
        this.outboxOldest.set({ channel: c.channel }, c.oldestSeconds);
      }
      this.endpointsDisabled.set(s.figures.webhookEndpointsDisabled);
      this.confirmationOldest.set(s.figures.marketplaceConfirmationOldestSeconds);
      for (const [within, n] of Object.entries(s.figures.unassigned)) this.unassigned.set({ within }, n);
      for (const [day, km] of Object.entries(s.figures.planDeadheadKm)) this.planDeadhead.set({ day }, km);
      this.privacyLastSuccess.set(s.figures.privacyRetentionFinishedSeconds);
    } else {
      // Unknown, not zero: a read that failed must not look like "none" and then "some again" to an alert.
      this.endpointsDisabled.set(Number.NaN);
      this.confirmationOldest.set(Number.NaN);
    }
    this.ready.set(s.ready ? 1 : 0);
    for (const [state, n] of Object.entries(s.pool)) this.pool.set({ state }, n);
    return this.registry.metrics();
  }
}
