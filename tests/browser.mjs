#!/usr/bin/env node
// The browser suites (tests/<suite>/run.mjs), one command line and one report:
//
//   node tests/browser.mjs [suite ...] [--engine chromium|firefox|webkit|all] [options]
//
// Suites: passkey store crosstab points isolate e2e csp react vite (default: all, in that
// order); --engine is repeatable or comma-separated (default: all three). Each suite sets
// up its servers once, runs in each engine in turn and closes; each engine's browser is
// launched once and shared by the suites (tests/support/engines.mjs: a Playwright Browser
// for Chromium, whose contexts a suite opens; for Firefox ESR and WebKitGTK the WebDriver
// server, whose sessions are fresh browser processes). What a suite leaves open is closed
// before the next; a browser that died is launched again.
//
// Options the suites read: --scale N (points: N times the fresh page loads),
// --screenshot PATH (e2e), path/to/embedded-wallet-kit-x.y.z.tgz (vite, react; default the
// newest dist/*.tgz, packed from pkg/ when there is none).
//
// Prints each check ("ok - …" / "not ok - …"), a table of passed/failed and seconds per
// suite and engine, then "N passed, N failed"; exits non-zero on a failure or when
// nothing ran.
import { pathToFileURL } from 'node:url';
import { enginesFromArgs, launchEngine } from './support/engines.mjs';

export const SUITES = ['passkey', 'store', 'crosstab', 'points', 'isolate', 'e2e', 'csp', 'react', 'vite'];
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

/** Runs the suites named in `argv` in its engines; prints the report and exits. */
export async function runSuites(argv = process.argv.slice(2)) {
  const engines = enginesFromArgs(argv);
  const names = suitesFromArgs(argv);
  const pool = browserPool();
  const rows = []; // { suite, cells: { setup | engine: { passed, failed, ms } }, ms }
  const started = Date.now();
  for (const name of names) {
    console.log(`# ---- ${name} (${engines.join(', ')})`);
    const row = { suite: name, cells: {}, ms: 0 };
    rows.push(row);
    const t0 = Date.now();
    let suite;
    try {
      suite = (await import(`./${name}/run.mjs`)).default;
    } catch (err) {
      console.log(`not ok - ${name}: setup: ${stack(err).split('\n').join('\n  ')}`);
      row.cells.setup = { passed: 0, failed: 1, ms: Date.now() - t0 };
      row.ms = Date.now() - t0;
      continue;
    }
    const { counts } = suite.checks;
    let mark = { passed: 0, failed: 0, at: t0 };
    const cell = () => {
      const now = { passed: counts.passed, failed: counts.failed, at: Date.now() };
      const c = { passed: now.passed - mark.passed, failed: now.failed - mark.failed, ms: now.at - mark.at };
      mark = now;
      return c;
    };
    const setup = cell();
    if (setup.passed + setup.failed > 0) row.cells.setup = setup;
    for (const engine of engines) {
      try {
        await suite.run(engine, await pool.get(engine));
      } catch (err) {
        suite.checks.fail(`[${engine}] ${name} driver: ${stack(err).split('\n').join('\n  ')}`);
      } finally {
        await pool.tidy(engine).catch((err) => suite.checks.fail(`[${engine}] ${name}: closing what it left open: ${stack(err)}`));
      }
      const c = cell();
      row.cells[engine] = c;
      console.log(`# ${name} in ${engine}: ${c.passed} passed, ${c.failed} failed, ${seconds(c.ms)} s`);
    }
    try {
      await suite.close();
    } catch (err) {
      suite.checks.fail(`${name}: close: ${stack(err)}`);
    }
    const last = cell();
    if (last.passed + last.failed > 0) {
      const s = row.cells.setup ?? { passed: 0, failed: 0, ms: 0 };
      row.cells.setup = { passed: s.passed + last.passed, failed: s.failed + last.failed, ms: s.ms + last.ms };
    }
    row.ms = Date.now() - t0;
  }
  await pool.close();
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
