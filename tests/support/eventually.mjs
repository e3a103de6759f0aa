// Retrying a check against work that takes real time (IndexedDB steps, WebCrypto, a
// BroadcastChannel), for Node tests that cannot await the step itself.
import { setTimeout as sleep } from 'node:timers/promises';

/** Retries `check` every 50 ms for up to `ms` of real time; its last error if it never passes. */
export async function eventually(check, ms = 3000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(50);
    }
  }
}
