import type { Config } from './config/env';
import type { Database } from './data/database';
import type { Clock } from './shared/clock';
import type { Logger } from './shared/logger';
import type { OutboundExchange } from './domain/kernel/outbound-exchange';
import type { KeyCache } from './domain/partners/key-cache';
import type { RecentBookingFacts } from './domain/bookings/recent';
import type { FleetCapacity } from './domain/fleet/capacity';
import type { Resolve } from './domain/webhooks/targets';
import type { EmptyBuckets, AnonymousLimiter } from './http/token-buckets';
import type { Metrics } from './http/metrics';
import type { NoticeBody } from './domain/marketplace/notices';
import type { DataKeys } from './domain/kernel/data-keys';

/** Reads an order from the marketplace's authenticated API (the re-fetch behind every callback). */
export interface OrderSource {
  getOrder(orderId: string, opts?: { requestId?: string }): Promise<{ order: unknown; exchange: OutboundExchange }>;
}

/** What the composition root (server.ts) hands to every surface and use case. */
export interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
  logger: Logger;
  /** Partner keys authenticated before (verified again by every request's final statement). */
  keys: KeyCache;
  /** The data keys that seal travellers' personal data in the audit log (docs/architecture.md, "Personal data"). */
  dataKeys: DataKeys;
  /** Offers this instance quoted and keys it saw completed, lately (see RecentBookingFacts). */
  recent: RecentBookingFacts;
  /** What production quoting may offer (the fleet's free classes). */
  fleet: FleetCapacity;
  /** Set when the instance is shutting down: requests still arriving are refused cleanly. */
  /** leaving: readiness off, requests still served (DRAIN_DELAY_MS); draining: new requests refused, the rest finish. */
  lifecycle: { leaving: boolean; draining: boolean };
  /** Resolves webhook hosts (DNS; tests inject their own), at registration and at every delivery. */
  resolveHost: Resolve;
  /** Rate limits: the anonymous buckets (per client address) and what this instance knows of empty partner buckets. */
  limits: { anonymous: AnonymousLimiter; emptyPartners: EmptyBuckets };
  /** The Prometheus metrics of this instance. */
  metrics: Metrics;
  /** Builds the wire body of each notice we send the marketplace (the marketplace adapter's). */
  marketplaceNotices: NoticeBody;
  /** Present when MARKETPLACE_URL, MARKETPLACE_USER_ID and MARKETPLACE_PRIVATE_KEY are configured. */
  orderSource?: OrderSource;
}
