#!/usr/bin/env node
// Checks the import graph of the shipped JavaScript (npm/*.js), run by `make lint-js`:
// every static `import`/`export ... from` and every `import('…')` between npm/ files is an
// edge. It fails, printing what it found, on
//   - an import circle: a module that imports (statically or with import()) a module that,
//     directly or further down, imports it back;
//   - an `import()` whose specifier is not a string literal (bundlers and browsers need
//     the literal to find the file);
//   - an `import('./x.js')` without an `import.meta.resolve?.('./x.js')` at the top level
//     of the same module: a lazily loaded file is resolved when the kit loads, so that an
//     import map injected later cannot redirect it (npm/signer-platform.js);
//   - a lazily loaded module (an import() target) importing a module that itself lazily
//     loads something: implementations take what they share with the entry's modules from
//     a lower module (npm/shared.js), not sideways from another facade.
// Then it prints the layers: each module above everything it imports.
//
// Usage: node scripts/check-imports.mjs [dir]   (default: js)
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { parse } from 'acorn';

const dir = resolve(process.argv[2] ?? 'npm');
const files = readdirSync(dir).filter((f) => f.endsWith('.js')).sort();
const problems = [];

/** Every node of an acorn tree, depth first. */
function* nodes(node) {
  if (node === null || typeof node !== 'object') return;
  if (typeof node.type === 'string') yield node;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || key === 'start' || key === 'end') continue;
    if (Array.isArray(value)) for (const v of value) yield* nodes(v);
    else if (value !== null && typeof value === 'object') yield* nodes(value);
  }
}

const isString = (node) => node?.type === 'Literal' && typeof node.value === 'string';
const isRelative = (spec) => spec.startsWith('./') || spec.startsWith('../');

/** `import.meta.resolve?.('x')` or `import.meta.resolve('x')` as a statement at the top level: its specifier. */
function earlyResolve(statement) {
  if (statement.type !== 'ExpressionStatement') return undefined;
  let call = statement.expression;
  if (call.type === 'ChainExpression') call = call.expression;
  if (call.type !== 'CallExpression' || !isString(call.arguments[0])) return undefined;
  const callee = call.callee;
  const meta = callee.type === 'MemberExpression' && callee.property.name === 'resolve' ? callee.object : undefined;
  return meta?.type === 'MetaProperty' && meta.meta.name === 'import' ? call.arguments[0].value : undefined;
}

/** file -> [{ to, kind: 'static' | 'dynamic' }] (targets inside `dir` only). */
const graph = new Map();
for (const file of files) {
  const path = join(dir, file);
  const tree = parse(readFileSync(path, 'utf8'), { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  const resolvedEarly = new Set(tree.body.map(earlyResolve).filter((s) => s !== undefined));
  const edges = [];
  const add = (spec, kind, node) => {
    if (!isRelative(spec)) return;
    const target = relative(dir, resolve(dirname(path), spec));
    if (kind === 'dynamic' && !resolvedEarly.has(spec)) {
      problems.push(`${file}:${node.loc.start.line}: import('${spec}') has no top-level import.meta.resolve?.('${spec}'): an import map injected later could redirect it`);
    }
    // The wasm-bindgen glues are generated into pkg/ (they import only their snippets).
    if (!existsSync(join(dir, target))) return;
    edges.push({ to: target, kind, line: node.loc.start.line });
  };
  for (const node of nodes(tree)) {
    if ((node.type === 'ImportDeclaration' || node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') && node.source) {
      add(node.source.value, 'static', node);
    } else if (node.type === 'ImportExpression') {
      if (isString(node.source)) add(node.source.value, 'dynamic', node);
      else problems.push(`${file}:${node.loc.start.line}: import() of a computed specifier: bundlers and browsers need a string literal`);
    }
  }
  graph.set(file, edges);
}

const arrow = (kind) => (kind === 'dynamic' ? ' --import()--> ' : ' --> ');

// Circles: a depth-first search; an edge back to a module on the current path closes one.
const cycles = new Set();
const state = new Map(); // file -> 'open' | 'done'
const path = [];
function visit(file) {
  state.set(file, 'open');
  for (const edge of graph.get(file)) {
    if (state.get(edge.to) === 'open') {
      const from = path.findIndex((step) => step.file === edge.to);
      const loop = [...path.slice(from), { file, edge }];
      cycles.add(loop.map((step) => `${step.file}:${step.edge.line}${arrow(step.edge.kind)}`).join('') + edge.to);
    } else if (!state.has(edge.to)) {
      path.push({ file, edge });
      visit(edge.to);
      path.pop();
    }
  }
  state.set(file, 'done');
}
for (const file of files) if (!state.has(file)) visit(file);
for (const cycle of cycles) problems.push(`import circle: ${cycle}`);

// Sideways: a lazily loaded module importing a module that lazily loads.
const lazyTargets = new Set([...graph.values()].flat().filter((e) => e.kind === 'dynamic').map((e) => e.to));
const loadsLazily = (file) => graph.get(file).some((e) => e.kind === 'dynamic');
for (const file of lazyTargets) {
  for (const edge of graph.get(file)) {
    if (loadsLazily(edge.to)) {
      problems.push(`${file}:${edge.line}: imports ${edge.to}, which lazily loads ${graph.get(edge.to).filter((e) => e.kind === 'dynamic').map((e) => e.to).join(', ')}: `
        + `${file} is itself loaded lazily, so what it needs from there belongs in a module both import`);
    }
  }
}

if (problems.length > 0) {
  const shown = relative(process.cwd(), dir).startsWith('..') ? dir : relative(process.cwd(), dir) || '.';
  for (const problem of problems) console.error(`check-imports: ${problem}`);
  console.error(`check-imports: FAIL — ${problems.length} problem(s) in ${shown}/ (${cycles.size} import circle(s))`);
  process.exit(1);
}

// Layers (the graph has no circle): 0 imports nothing from npm/, n imports something at n - 1.
const layer = new Map();
const depth = (file) => {
  if (!layer.has(file)) layer.set(file, Math.max(-1, ...graph.get(file).map((e) => depth(e.to))) + 1);
  return layer.get(file);
};
const byLayer = [];
for (const file of files) (byLayer[depth(file)] ??= []).push(file);
byLayer.forEach((layerFiles, n) => console.log(`check-imports: layer ${n}: ${layerFiles.join(' ')}`));
const edgeCount = [...graph.values()].flat().length;
console.log(`check-imports: ok — ${files.length} modules, ${edgeCount} imports (${lazyTargets.size} loaded lazily), no circle`);
