/**
 * What an EventBridge schedule does on AWS, the local stack does on an interval: run one job every
 * `everyMs`, never two at once (a run still going skips the next), and `stop` waits for the run in
 * progress. The recovery sweep (sweep.ts) and the WB sync tick (wb-sync.ts) use it.
 */
export function everyInterval(
  everyMs: number,
  job: () => Promise<void>,
  onError: (e: unknown) => void,
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = job()
      .catch(onError)
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
