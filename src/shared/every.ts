/**
 * Runs `pass` every `pollMs`, the next one scheduled when the previous ends (so passes never overlap in one
 * process); `pass` handles its own errors. The returned stopper prevents further passes and waits for the one in
 * flight. The outbox worker and the flight poller run on it.
 */
export function runEvery(pass: () => Promise<unknown>, pollMs: number): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  const tick = () => {
    inFlight = pass();
    void inFlight.then(schedule);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(tick, pollMs);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await inFlight;
  };
}
