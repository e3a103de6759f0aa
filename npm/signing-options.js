// The signing entry's answer to the main entry's init() options (`passkeys`, `isolate`,
// `enclave`), for both of its entries; apart from npm/guard.js, which the main entry loads too.
import { KitError } from './platform.js';
import { INIT_OPTIONS } from './guard.js';

/**
 * A rejection naming the first main-entry option that is set in `read` (what
 * npm/guard.js's readInit() read), undefined when none is (`false` and `null` are unset).
 *
 * @param {Record<string, unknown>} read
 * @returns {Promise<never> | undefined}
 */
export function refuseMainOptions(read) {
  for (let i = 1; i < INIT_OPTIONS.length; i++) {
    const option = INIT_OPTIONS[i];
    const value = read[option];
    if (value !== undefined && value !== null && value !== false) {
      return Promise.reject(new KitError('INVALID_INPUT', `init: the signing entry has no ${option} option: import 'embedded-wallet-kit' for it`));
    }
  }
  return undefined;
}
