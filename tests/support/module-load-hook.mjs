// A Node module customization hook (registered by tests/support/module-loads.mjs; Node
// runs it off the main thread): appends the URL of every ES module this process loads to
// a file, before the import that loaded it resolves.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  appendFileSync(file, `${url}\n`);
  return result;
}
