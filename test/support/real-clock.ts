/**
 * A pickup `days` days after today in Sri Lanka, at `time` there, as RFC 3339 with +05:30: for tests that run on the
 * real clock (a certification run, the built service). Pickups need 24 hours' notice, so a fixed date in such a test
 * fails from the day before it on.
 */
export function pickupInDays(days: number, time = '09:30'): string {
  const day = new Date(Date.now() + days * 86_400_000 + 330 * 60_000).toISOString().slice(0, 10);
  return `${day}T${time}:00+05:30`;
}
