// The code blocks of the npm README (npm/README.md) as TypeScript modules, so
// that scripts/pack-smoke.mjs compiles each one, fully strict, against the packed
// tarball: a snippet that stops compiling fails `make test`. A block is a fragment of an
// app: the names it takes from the app around it (the user's `otp`, `quote`, `transport`,
// ...) are declared, with their types, in tests/readme/context.d.ts.
import { readFileSync } from 'node:fs';

/**
 * The README's js/jsx/ts/tsx blocks: `{ line, file, source }` (the block's first line in
 * the README, a file name for it, its text made a module).
 *
 * @param {string} readmePath
 */
export function readmeSnippets(readmePath) {
  const lines = readFileSync(readmePath, 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(js|jsx|ts|tsx)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end].startsWith('```')) end++;
    const ext = open[1].endsWith('x') ? 'tsx' : 'ts';
    const source = `${lines.slice(start, end).join('\n')}\nexport {};\n`;
    out.push({ line: start, file: `readme-${String(start).padStart(4, '0')}.${ext}`, source });
    i = end;
  }
  return out;
}

/**
 * tsc's diagnostics (`file(line,col): error TSnnnn: ...` lines), with the README line a
 * snippet's points at.
 *
 * @param {string} output tsc's output
 * @param {{ line: number, file: string }[]} snippets
 */
export function snippetErrors(output, snippets) {
  const byFile = new Map(snippets.map((s) => [s.file, s]));
  const errors = [];
  for (const m of output.matchAll(/^(readme-\d+\.tsx?)\((\d+),\d+\): error (TS\d+): (.*)$/gm)) {
    const snippet = byFile.get(m[1]);
    errors.push(`README.md line ${snippet.line + Number(m[2])}: ${m[3]} ${m[4]}`);
  }
  const other = output.split('\n').filter((l) => /error TS\d+/.test(l) && !/^readme-\d+\.tsx?\(/.test(l));
  return [...errors, ...other];
}
