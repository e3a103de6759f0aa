// The reporting of the browser suites (tests/*/run.mjs, run by tests/browser.mjs): one
// "ok - …" / "not ok - …" line per check, and the counts the runner reports. `tag` (empty
// by default) goes before every line: the runner sets it when suites run side by side.

export function createChecks() {
  const counts = { passed: 0, failed: 0 };
  const out = { tag: '' };

  /** Runs one named check; a throw (or rejection) fails it. */
  async function check(name, fn) {
    try {
      await fn();
      counts.passed++;
      console.log(`${out.tag}ok - ${name}`);
    } catch (err) {
      counts.failed++;
      console.log(`${out.tag}not ok - ${name}\n  ${String(err?.stack ?? err).split('\n').join('\n  ')}`);
    }
  }

  function assert(cond, msg) {
    if (!cond) throw new Error(msg);
  }

  /** Counts a failure outside any check (e.g. the driver itself crashed). */
  function fail(message) {
    counts.failed++;
    console.log(`${out.tag}not ok - ${message}`);
  }

  return { check, assert, fail, counts, out };
}
