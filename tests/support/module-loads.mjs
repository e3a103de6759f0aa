// Which ES modules this process has loaded, for tests of what loads lazily. Call
// recordModuleLoads() before importing what it should watch (a dynamic import after it).
import { register } from 'node:module';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Starts recording; returns a function giving the file URLs loaded since, in load order. */
export function recordModuleLoads() {
  const file = join(mkdtempSync(join(tmpdir(), 'ewk-module-loads-')), 'loads.txt');
  writeFileSync(file, '');
  register('./module-load-hook.mjs', import.meta.url, { data: { file } });
  return () => readFileSync(file, 'utf8').split('\n').filter((url) => url.startsWith('file:'));
}
