// The reporting of the headless drivers (tests/passkey, tests/e2e, tests/vite): one
// "ok - …" / "not ok - …" line per check, then "N passed, N failed" (the closing line CI
// reads) and an exit code that is non-zero on any failure or when nothing ran.

export function createChecks() {
  const counts = { passed: 0, failed: 0 };

  /** Runs one named check; a throw (or rejection) fails it. */
  async function check(name, fn) {
    try {
      await fn();
      counts.passed++;
      console.log(`ok - ${name}`);
    } catch (err) {
      counts.failed++;
      console.log(`not ok - ${name}\n  ${String(err?.stack ?? err).split('\n').join('\n  ')}`);
    }
  }

  function assert(cond, msg) {
    if (!cond) throw new Error(msg);
  }

  /** Counts a failure outside any check (e.g. the driver itself crashed). */
  function fail(message) {
    counts.failed++;
    console.log(`not ok - ${message}`);
  }

  /** Prints the closing line and exits. */
  function finish() {
    console.log(`${counts.passed} passed, ${counts.failed} failed`);
    process.exit(counts.failed === 0 && counts.passed > 0 ? 0 : 1);
  }

  return { check, assert, fail, finish, counts };
}
