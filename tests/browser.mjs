#!/usr/bin/env node
// The browser suites (tests/<suite>/run.mjs), one command line and one report:
//
//   node tests/browser.mjs [suite ...] [--engine chromium|firefox|webkit|all] [options]
//
// Suites: passkey store crosstab points isolate e2e csp react vite frameworks (default: all, in that
// order); --engine is repeatable or comma-separated (default: all three). Each suite sets
// up its servers once, runs in each engine in turn and closes; each engine's browser is
// launched once and shared by the suites (tests/support/engines.mjs: a Playwright Browser
// for Chromium, whose contexts a suite opens; for Firefox ESR and WebKitGTK the WebDriver
// server, whose sessions are fresh browser processes). What a suite leaves open is closed
// before the next; a browser that died is launched again.
//
// --parallel: the engines at once (one lane per engine, each through the suites in order;
// a suite runs in one engine at a time), the lines of each suite tagged with its name.
//
// Options the suites read: --scale N (points: N times the fresh page loads),
// --screenshot PATH (e2e), path/to/embedded-wallet-kit-x.y.z.tgz (vite, react, frameworks; default the
// newest dist/*.tgz, packed from pkg/ when there is none).
//
// Prints each check ("ok - …" / "not ok - …"), a table of passed/failed and seconds per
// suite and engine, then "N passed, N failed"; exits non-zero on a failure or when
// nothing ran.
import { pathToFileURL } from 'node:url';
import { enginesFromArgs, launchEngine } from './support/engines.mjs';

export const SUITES = ['passkey', 'store', 'crosstab', 'points', 'isolate', 'e2e', 'csp', 'react', 'vite', 'frameworks'];
/** Options that take a value (--engine is the runner's; the others the suites'). */
const VALUED = ['--engine', '--scale', '--screenshot'];

function suitesFromArgs(argv) {
  const names = argv.filter((a, i) => !a.startsWith('--') && !VALUED.includes(argv[i - 1]) && !a.endsWith('.tgz'));
  const unknown = names.filter((n) => !SUITES.includes(n));
  if (unknown.length > 0) throw new Error(`unknown suite ${unknown.join(', ')} (one of ${SUITES.join(', ')})`);
  return names.length > 0 ? SUITES.filter((s) => names.includes(s)) : SUITES;
}

const seconds = (ms) => (ms / 1000).toFixed(1);
const stack = (err) => String(err?.stack ?? err);

/** One shared browser per engine, launched when first needed and again if it died. */
function browserPool() {
  const browsers = new Map();
  return {
    async get(engine) {
      const browser = browsers.get(engine);
      if (browser?.isConnected()) return browser;
      browsers.delete(engine);
      await browser?.close().catch(() => {});
      const launched = await launchEngine(engine);
      browsers.set(engine, launched);
      return launched;
    },
    /** Closes what a suite left open: Chromium's contexts, WebDriver sessions. */
    async tidy(engine) {
      const browser = browsers.get(engine);
      if (!browser?.isConnected()) return;
      if (engine === 'chromium') await Promise.all(browser.contexts().map((c) => c.close()));
      else await browser.closeSessions();
    },
    async close() {
      await Promise.all([...browsers.values()].map((b) => b.close()));
    },
  };
}

/**
 * Runs the suites named in `argv` in its engines; prints the report and exits. By default
 * one suite after another, each in every engine in turn. With --parallel, one lane per
 * engine: the engines run at once, each through the suites in order, a suite in one engine
 * at a time (a suite's state is its module's); each suite's lines are then tagged.
 */
export async function runSuites(argv = process.argv.slice(2)) {
  const engines = enginesFromArgs(argv);
  const names = suitesFromArgs(argv);
  const parallel = argv.includes('--parallel');
  const pool = browserPool();
  const started = Date.now();
  const suites = new Map(names.map((name) => [name, {
    name, row: { suite: name, cells: {}, ms: 0 }, loaded: null, busy: false, done: 0, t0: 0,
  }]));

  let setups = Promise.resolve(); // one suite set up at a time
  /** Imports (sets up) a suite once; undefined if its setup failed (counted as a failure). */
  const load = (s) => {
    s.loaded ??= setups = setups.then(async () => {
      if (!parallel) console.log(`# ---- ${s.name} (${engines.join(', ')})`);
      s.t0 = Date.now();
      try {
        const { default: suite } = await import(`./${s.name}/run.mjs`);
        if (parallel) suite.checks.out.tag = `${s.name}: `;
        s.suite = suite;
        const { passed, failed } = suite.checks.counts;
        if (passed + failed > 0) s.row.cells.setup = { passed, failed, ms: Date.now() - s.t0 };
        return suite;
      } catch (err) {
        console.log(`not ok - ${s.name}: setup: ${stack(err).split('\n').join('\n  ')}`);
        s.row.cells.setup = { passed: 0, failed: 1, ms: Date.now() - s.t0 };
        return undefined;
      }
    });
    return s.loaded;
  };
  /** Counts what `fn` adds to the suite's checks into the row's `column`. */
  const counted = async (s, column, fn) => {
    const { counts } = s.suite.checks;
    const before = { ...counts, at: Date.now() };
    await fn();
    if (column === 'setup' && !s.row.cells.setup && counts.passed + counts.failed === before.passed + before.failed) return undefined;
    const c = s.row.cells[column] ?? { passed: 0, failed: 0, ms: 0 };
    s.row.cells[column] = {
      passed: c.passed + counts.passed - before.passed, failed: c.failed + counts.failed - before.failed, ms: c.ms + Date.now() - before.at,
    };
    return s.row.cells[column];
  };
  const runIn = (s, engine) => counted(s, engine, async () => {
    try {
      await s.suite.run(engine, await pool.get(engine));
    } catch (err) {
      s.suite.checks.fail(`[${engine}] ${s.name} driver: ${stack(err).split('\n').join('\n  ')}`);
    } finally {
      await pool.tidy(engine).catch((err) => s.suite.checks.fail(`[${engine}] ${s.name}: closing what it left open: ${stack(err)}`));
    }
  });
  const close = (s) => counted(s, 'setup', async () => {
    try {
      await s.suite.close();
    } catch (err) {
      s.suite.checks.fail(`${s.name}: close: ${stack(err)}`);
    }
  });

  // A lane takes its next (suite, engine) whose suite no other lane is running.
  const lanes = parallel
    ? engines.map((engine) => names.map((name) => ({ s: suites.get(name), engine })))
    : [names.flatMap((name) => engines.map((engine) => ({ s: suites.get(name), engine })))];
  let freed = () => {};
  let changed = new Promise((r) => { freed = r; });
  const notify = () => {
    freed();
    changed = new Promise((r) => { freed = r; });
  };
  await Promise.all(lanes.map(async (queue) => {
    while (queue.length > 0) {
      const i = queue.findIndex((item) => !item.s.busy);
      if (i < 0) {
        await changed;
        continue;
      }
      const [{ s, engine }] = queue.splice(i, 1);
      s.busy = true;
      try {
        if (await load(s)) {
          const c = await runIn(s, engine);
          console.log(`# ${s.name} in ${engine}: ${c.passed} passed, ${c.failed} failed, ${seconds(c.ms)} s`);
          if (++s.done === engines.length) await close(s);
        }
        s.row.ms = Date.now() - s.t0;
      } finally {
        s.busy = false;
        notify();
      }
    }
  }));
  const rows = [...suites.values()].map((s) => s.row);
  await pool.close().catch((err) => {
    console.log(`not ok - closing the browsers: ${stack(err)}`);
    rows.push({ suite: '(browsers)', cells: { setup: { passed: 0, failed: 1, ms: 0 } }, ms: 0 });
  });
  report(rows, engines, Date.now() - started);
}

function report(rows, engines, ms) {
  const columns = ['setup', ...engines];
  const text = (c) => (c ? `${c.passed}/${c.failed} ${seconds(c.ms)}s` : '-');
  const table = [['suite', ...columns.map((c) => (c === 'setup' ? 'once' : c)), 'total'],
    ...rows.map((r) => [r.suite, ...columns.map((c) => text(r.cells[c])), `${seconds(r.ms)}s`])];
  const widths = table[0].map((_, i) => Math.max(...table.map((line) => line[i].length)));
  console.log('#\n# passed/failed and seconds per suite and engine ("once": checks outside the engines)');
  for (const line of table) console.log(`# ${line.map((v, i) => v.padEnd(widths[i])).join('  ')}`);
  const sum = (key) => rows.reduce((n, r) => n + Object.values(r.cells).reduce((m, c) => m + c[key], 0), 0);
  const passed = sum('passed');
  const failed = sum('failed');
  console.log(`# ${seconds(ms)} s in all`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  await runSuites().catch((err) => {
    console.log(`not ok - ${stack(err)}\n0 passed, 1 failed`);
    process.exit(1);
  });
}
