// The packed package the bundler suites (tests/vite, tests/react) install: the path given
// on the command line (the first argument that is not an --engine option), else the
// newest dist/embedded-wallet-kit-*.tgz, packed from pkg/ when there is none.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs a command in `cwd`, its output to ours; throws when it fails. */
export function sh(cmd, args, cwd) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
}

export function findTarball() {
  const given = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--engine') && all[i - 1] !== '--engine');
  if (given[0]) return resolve(given[0]);
  const dist = join(root, 'dist');
  const candidates = existsSync(dist)
    ? readdirSync(dist).filter((f) => /^embedded-wallet-kit-.*\.tgz$/.test(f)).map((f) => join(dist, f))
    : [];
  if (candidates.length === 0) {
    if (!existsSync(join(root, 'pkg', 'package.json'))) throw new Error('no tarball and no pkg/: run `make build` first');
    sh('npm', ['pack', './pkg', '--pack-destination', 'dist', '--loglevel=error'], root);
    return findTarball();
  }
  return candidates.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}
