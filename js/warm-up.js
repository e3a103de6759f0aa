// Shared by both entries: runs the module's warmUp() in idle time after init() resolved.
//
// warmUp() runs one round of what the first keygen, open and stamp would otherwise run
// cold (the kit's basepoint table on the first round, then a keygen, an open and a stamp of
// throwaway keys: bindings/signing/src/warm.rs). One round is not enough: an engine
// optimises a function once it has run enough (Chromium, the first Session.open after
// init(): about 3.1 ms after one round, 1.5 ms after six; `make bench` measures it).

/** How many rounds run in all. */
export const WARM_UP_ROUNDS = 6;

/**
 * Schedules the rounds: as many as an idle period has room for, the rest in later idle
 * periods (setTimeout where requestIdleCallback is missing); never inside init(), whose
 * promise has resolved by then. A round that fails (answers false) or throws ends the
 * warm-up: the first real operations then warm up instead, and there is nothing to report.
 *
 * @param {() => boolean} warmUp the module's export
 */
export function warmUpLater(warmUp) {
  let left = WARM_UP_ROUNDS;
  const schedule = () => {
    if (typeof globalThis.requestIdleCallback === 'function') globalThis.requestIdleCallback(run, { timeout: 50 });
    else setTimeout(run, 0);
  };
  /** @param {{ timeRemaining(): number }} [deadline] */
  const run = (deadline) => {
    try {
      do {
        if (!warmUp()) return;
        left -= 1;
      } while (left > 0 && deadline !== undefined && deadline.timeRemaining() > 5);
    } catch {
      return;
    }
    if (left > 0) schedule();
  };
  schedule();
}
