// The packed package the bundler suites (tests/vite, tests/react) install: the path given
// on the command line (the first argument ending in .tgz), else the
// newest dist/embedded-wallet-kit-*.tgz, packed from pkg/ when there is none; installed
// into the suite's app, whose `vite build` warnings are recorded.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from 'vite';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs a command in `cwd`, its output to ours; throws when it fails. */
export function sh(cmd, args, cwd) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
}

export function findTarball() {
  const given = process.argv.slice(2).find((a) => a.endsWith('.tgz'));
  if (given) return resolve(given);
  const dist = join(root, 'dist');
  const candidates = existsSync(dist)
    ? readdirSync(dist).filter((f) => /^embedded-wallet-kit-.*\.tgz$/.test(f)).map((f) => join(dist, f))
    : [];
  if (candidates.length === 0) {
    if (!existsSync(join(root, 'pkg', 'package.json'))) throw new Error('no tarball and no pkg/: run `make build` first');
    mkdirSync(dist, { recursive: true });
    sh('npm', ['pack', './pkg', '--pack-destination', 'dist', '--loglevel=error'], root);
    return findTarball();
  }
  return candidates.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** Installs the tarball into the app at `appDir` (a fresh node_modules, nothing saved); returns its path. */
export function installTarball(appDir) {
  const tarball = findTarball();
  console.log(`# tarball ${tarball}`);
  rmSync(join(appDir, 'node_modules'), { recursive: true, force: true });
  sh('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', tarball], appDir);
  return tarball;
}

/** A Vite logger that also records what it warns about (and its errors) into `into`. */
export function recordingLogger(into) {
  const logger = createLogger('warn');
  for (const level of ['warn', 'warnOnce', 'error']) {
    const print = logger[level].bind(logger);
    logger[level] = (msg, opts) => {
      into.push(`${level}: ${msg}`);
      print(msg, opts);
    };
  }
  return logger;
}
