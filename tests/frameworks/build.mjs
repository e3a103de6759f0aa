#!/usr/bin/env node
// Builds one fixture app (run.mjs starts one process per tool, side by side):
//   node tests/frameworks/build.mjs <webpack|esbuild|esbuild-uncopied|rollup|parcel|plain|next-turbopack|next-webpack>
// Sources in fixtures/, output in out/<name>/ (what a browser loads: served by the
// emulator, or `next start` for the Next apps). Each tool with its defaults, as an app
// author gets them; esbuild and Rollup then run the README's one copy line
// (esbuild-uncopied leaves it out, to see the error that names it).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeBlock, readmeImportMap } from './readme-code.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const fixtures = join(here, 'fixtures');
const kitDir = join(here, 'node_modules', 'embedded-wallet-kit');
const name = process.argv[2];
/** The first line of the README's Next.js route handler. */
const ROUTE = '// app/backend/[...path]/route.ts — the transport calls /backend/<API path>';
const out = join(here, 'out', name);

/** The README's copy line for bundlers that leave `new URL(…, import.meta.url)` alone. */
function copyKitFiles(dir) {
  for (const f of readdirSync(kitDir).filter((f) => /\.(js|wasm)$/.test(f))) cpSync(join(kitDir, f), join(dir, f));
}

/** index.html loading `script` (a module unless `classic`). */
function page(dir, script, classic = false) {
  const tag = classic ? `<script defer src="./${script}"></script>` : `<script type="module" src="./${script}"></script>`;
  writeFileSync(join(dir, 'index.html'), `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${name}</title><link rel="icon" href="data:,"></head>\n<body><p>${name}</p>${tag}</body></html>\n`);
}

const builds = {
  async webpack() {
    const { default: webpack } = await import('webpack');
    const stats = await new Promise((resolve, reject) => {
      // (resolve.tsconfig: the repository's own tsconfig.json, whose paths point the kit's name
      // at its sources for type checks, is not the app's.)
      webpack({ mode: 'production', context: fixtures, entry: './main.js', output: { path: out, clean: true }, resolve: { tsconfig: false } }, (err, s) => (err ? reject(err) : resolve(s)));
    });
    if (stats.hasErrors()) throw new Error(stats.toString('errors-only'));
    page(out, 'main.js', true);
  },
  async esbuild(copy = true) {
    const esbuild = await import('esbuild');
    rmSync(out, { recursive: true, force: true });
    await esbuild.build({ entryPoints: [join(fixtures, 'main.js')], bundle: true, format: 'esm', splitting: true, outdir: out, logLevel: 'warning' });
    if (copy) copyKitFiles(out);
    page(out, 'main.js');
  },
  'esbuild-uncopied': () => builds.esbuild(false),
  async rollup() {
    const { rollup } = await import('rollup');
    const { nodeResolve } = await import('@rollup/plugin-node-resolve');
    rmSync(out, { recursive: true, force: true });
    const bundle = await rollup({ input: join(fixtures, 'main.js'), plugins: [nodeResolve({ browser: true })], onwarn: (w) => console.log(`# rollup: ${w.message}`) });
    await bundle.write({ dir: out, format: 'es' });
    copyKitFiles(out);
    page(out, 'main.js');
  },
  async parcel() {
    const { Parcel } = await import('@parcel/core');
    rmSync(out, { recursive: true, force: true });
    const bundler = new Parcel({
      entries: join(fixtures, 'index.html'),
      defaultConfig: '@parcel/config-default',
      mode: 'production',
      cacheDir: join(here, 'out', '.parcel-cache'),
      // Parcel's defaults (scope hoisting on, as `parcel build` does).
      defaultTargetOptions: { distDir: out, publicUrl: './' },
      shouldDisableCache: false,
    });
    await bundler.run();
  },
  plain() {
    // The README's import map, the package at /vendor/embedded-wallet-kit/ as it says (the
    // emulator serves out/ at /, run.mjs's Express server out/vendor at /vendor).
    const vendor = join(here, 'out', 'vendor', 'embedded-wallet-kit');
    for (const dir of [out, vendor]) rmSync(dir, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    cpSync(kitDir, vendor, { recursive: true });
    cpSync(join(fixtures, 'page.js'), join(out, 'page.js'));
    cpSync(join(fixtures, 'main.js'), join(out, 'main.js'));
    writeFileSync(join(out, 'index.html'), `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>plain</title><link rel="icon" href="data:,">
${readmeImportMap()}</head>
<body><p>plain</p><script type="module" src="./main.js"></script></body></html>\n`);
  },
  'next-turbopack': () => next(['build']),
  'next-webpack': () => next(['build', '--webpack']),
  // The sources only: run.mjs runs `next dev` there.
  'next-dev': () => next([]),
};

/**
 * A Next.js app (fixtures/next, the shared page and the README's backend route) in
 * out/<name>, then `next <args>` there (none: the sources only).
 */
async function next(args) {
  // Everything but .next, whose cache/ makes a warm `next build` faster (next build
  // replaces the rest of .next itself).
  for (const f of existsSync(out) ? readdirSync(out).filter((f) => f !== '.next') : []) rmSync(join(out, f), { recursive: true, force: true });
  cpSync(join(fixtures, 'next'), out, { recursive: true });
  cpSync(join(fixtures, 'page.js'), join(out, 'app', 'fixture-page.js'));
  mkdirSync(join(out, 'app', 'backend', '[...path]'), { recursive: true });
  writeFileSync(join(out, 'app', 'backend', '[...path]', 'route.js'), await readmeBlock(ROUTE));
  if (args.includes('--webpack')) {
    // Next 16.4's webpack build fails on any edge route, even an empty one (ENOENT
    // route_client-reference-manifest.js): the edge route is in the Turbopack build only.
    rmSync(join(out, 'app', 'api', 'edge'), { recursive: true, force: true });
  }
  if (args.length === 0) return;
  execFileSync(process.execPath, [join(here, 'node_modules', 'next', 'dist', 'bin', 'next'), ...args], {
    cwd: out, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
}

if (!builds[name]) throw new Error(`unknown fixture ${name} (one of ${Object.keys(builds).join(', ')})`);
await builds[name]();
