// The package README's backend code as the tests run it: the TypeScript block whose first
// line is `firstLine`, as JavaScript (esbuild strips the types). A block that is not there
// fails the suite, so the README's copyable backends are the ones that ran.
import { readFileSync } from 'node:fs';

const README = new URL('../../npm/README.md', import.meta.url);

export async function readmeBlock(firstLine) {
  const blocks = readFileSync(README, 'utf8').split(/^```ts\n/m).slice(1).map((b) => b.split(/^```$/m)[0]);
  const block = blocks.find((b) => b.startsWith(`${firstLine}\n`));
  if (!block) throw new Error(`no ts block starting \`${firstLine}\` in npm/README.md`);
  // esbuild from this directory's tools (installed by run.mjs before it asks).
  const { transform } = await import('esbuild');
  return (await transform(block, { loader: 'ts', format: 'esm' })).code;
}

/** The import map of the package README's plain-page (html) block, as written there. */
export function readmeImportMap() {
  const html = readFileSync(README, 'utf8').split(/^```html\n/m)[1]?.split(/^```$/m)[0] ?? '';
  const map = /<script type="importmap">[^]*?<\/script>/.exec(html)?.[0];
  if (!map) throw new Error('no <script type="importmap"> in an html block of npm/README.md');
  return map;
}
