#!/usr/bin/env node
// `npm pack ./pkg` smoke test: the tarball holds exactly the package files, installs
// into a fresh project, resolves to the Node entry by name, works there (and so does
// `embedded-wallet-kit/testing`), and its TypeScript declarations compile against
// tests/types/usage.ts, tests/types/signing-usage.ts, tests/types/testing-usage.ts and
// every code block of the package README.
// Prints "N passed, N failed"; exits non-zero on failure. Leaves the tarball in dist/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeSnippets, snippetErrors } from '../tests/readme/snippets.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dist = join(root, 'dist');
let passed = 0;
let failed = 0;
function check(name, fn) {
  try {
    fn();
    passed++;
    console.log(`ok - ${name}`);
  } catch (err) {
    failed++;
    console.log(`not ok - ${name}\n  ${String(err?.stderr ?? '')}${String(err?.stdout ?? '')}${err?.message ?? err}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

mkdirSync(dist, { recursive: true });
for (const f of readdirSync(dist)) if (/^embedded-wallet-kit-.*\.tgz$/.test(f)) rmSync(join(dist, f));

let packed;
check('npm pack ./pkg', () => {
  packed = JSON.parse(run('npm', ['pack', './pkg', '--pack-destination', dist, '--json', '--loglevel=error'], root))[0];
  assert(packed.name === 'embedded-wallet-kit', `name ${packed.name}`);
  console.log(`# ${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.entryCount} files`);
});

// The package is what the build wrote into pkg/ (no list of its files is kept by hand): the
// tarball holds every one of them and nothing else.
check('the tarball holds exactly the files the build wrote into pkg/', () => {
  const files = packed.files.map((f) => f.path).sort();
  const built = readdirSync(join(root, 'pkg'), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(join(root, 'pkg'), join(d.parentPath ?? d.path, d.name)))
    .sort();
  assert(JSON.stringify(files) === JSON.stringify(built), `tarball: ${files.join(', ')}\npkg/: ${built.join(', ')}`);
  for (const entry of ['browser.js', 'node.js', 'index.d.ts', 'embedded_wallet_kit_bg.wasm', 'README.md', 'LICENSE']) {
    assert(files.includes(entry), `no ${entry} in the tarball`);
  }
});

const project = join(dist, 'pack-smoke');
check('the tarball installs into a fresh project', () => {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pack-smoke', private: true, type: 'module' }));
  run('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error',
    join(dist, packed.filename)], project);
});

check('Node resolves the package to node.js and it works there', () => {
  const script = `
    import { init, ClientKey, Session, KitError, passkey } from 'embedded-wallet-kit';
    import assert from 'node:assert/strict';
    assert.ok(import.meta.resolve('embedded-wallet-kit').endsWith('/node_modules/embedded-wallet-kit/node.js'));
    await init();
    const key = ClientKey.generate();
    assert.match(key.publicKeyHex, /^04[0-9a-f]{128}$/);
    const response = {
      id: 'Session:' + crypto.randomUUID(), accountId: 'InternalAccount:' + crypto.randomUUID(), type: 'EMAIL_OTP',
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    };
    const sb = Session.sandbox(response);
    assert.equal(sb.stamp('x'), 'sandbox-valid-signature');
    assert.throws(() => Session.open({ ...response, encryptedSessionSigningKey: '0OIl' }, key),
      (e) => e instanceof KitError && e.code === 'INVALID_BUNDLE');
    // The passkey API is in the module loaded at import: no WebAuthn in Node, but its
    // errors are the same KitError class and registrationBody works.
    assert.equal(passkey.isSupported(), false);
    await assert.rejects(passkey.register({ challenge: 'AAAA', rpId: 'x.test', rpName: 'x', user: { id: 'u', name: 'n' } }),
      (e) => e instanceof KitError && e.code === 'PASSKEY_UNSUPPORTED');
    assert.throws(() => passkey.registrationBody('InternalAccount:1', '', 'AAAA', {}),
      (e) => e instanceof KitError && e.code === 'INVALID_INPUT');
    assert.ok(import.meta.resolve('embedded-wallet-kit/embedded_wallet_kit_signing_bg.wasm').endsWith('_signing_bg.wasm'));
    assert.ok(import.meta.resolve('embedded-wallet-kit/embedded_wallet_kit_no_enclave_bg.wasm').endsWith('_no_enclave_bg.wasm'));
    // The signing entry: its own module, instantiated at import in Node.
    const signing = await import('embedded-wallet-kit/signing');
    assert.deepEqual(Object.keys(signing).sort(), ['ClientKey', 'KitError', 'Session', 'init']);
    await signing.init();
    assert.match(signing.ClientKey.generate().publicKeyHex, /^04[0-9a-f]{128}$/);
    assert.equal(signing.KitError, KitError);
    const pkg = (await import('embedded-wallet-kit/package.json', { with: { type: 'json' } })).default;
    assert.equal(pkg.sideEffects, false);
    console.log('node entry ok');
  `;
  const out = run(process.execPath, ['--input-type=module', '-e', script], project);
  assert(out.includes('node entry ok'), out);
});

// engines.node is the first Node whose require() loads ES modules (20.19): CommonJS
// projects require() the package as they import it.
check('CommonJS: require() loads the package on the Node engines names', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'pkg', 'package.json'), 'utf8'));
  assert(pkg.engines.node === '>=20.19', `engines.node is ${pkg.engines.node}`);
  writeFileSync(join(project, 'require.cjs'), `
    const assert = require('node:assert/strict');
    const { init, ClientKey, KitError } = require('embedded-wallet-kit');
    const signing = require('embedded-wallet-kit/signing');
    init().then(async () => {
      assert.match(ClientKey.generate().publicKeyHex, /^04[0-9a-f]{128}$/);
      await signing.init();
      assert.equal(signing.KitError, KitError);
      console.log('require ok');
    });
  `);
  const out = run(process.execPath, ['require.cjs'], project);
  assert(out.includes('require ok'), out);
});

check('Node resolves embedded-wallet-kit/testing to testing-node.js: register + authenticate, one KitError', () => {
  const script = `
    import { init, SoftAuthenticator, KitError } from 'embedded-wallet-kit/testing';
    import { KitError as MainKitError, passkey } from 'embedded-wallet-kit';
    import assert from 'node:assert/strict';
    import { createHash, randomBytes } from 'node:crypto';
    assert.ok(import.meta.resolve('embedded-wallet-kit/testing').endsWith('/node_modules/embedded-wallet-kit/testing-node.js'));
    assert.equal(KitError, MainKitError);
    await init();
    const origin = 'http://localhost:8787';
    const authenticator = new SoftAuthenticator(origin);
    const challenge = randomBytes(32).toString('base64url');
    const att = authenticator.register({ challenge, rpId: 'localhost', rpName: 'Smoke', user: { id: 'u-1', name: 'alice' } });
    assert.deepEqual(Object.keys(att), ['credentialId', 'clientDataJson', 'attestationObject', 'transports']);
    const regClient = JSON.parse(Buffer.from(att.clientDataJson, 'base64url'));
    assert.deepEqual([regClient.type, regClient.challenge, regClient.origin], ['webauthn.create', challenge, origin]);
    const login = createHash('sha256').update(randomBytes(16)).digest('hex');
    const a = authenticator.authenticate({ challenge: login, credentialId: att.credentialId });
    assert.deepEqual(Object.keys(a), ['credentialId', 'clientDataJson', 'authenticatorData', 'signature', 'userHandle']);
    assert.equal(a.credentialId, att.credentialId);
    assert.equal(JSON.parse(Buffer.from(a.clientDataJson, 'base64url')).challenge, Buffer.from(login).toString('base64url'));
    assert.equal(Buffer.from(a.authenticatorData, 'base64url').readUInt32BE(33), 1);
    assert.throws(() => authenticator.authenticate({ challenge: login, credentialId: 'AAAA' }),
      (e) => e instanceof MainKitError && e.code === 'PASSKEY_CANCELLED');
    assert.equal(passkey.registrationBody('InternalAccount:1', 'Smoke', challenge, att).attestation.credentialId, att.credentialId);
    authenticator.free();
    console.log('testing entry ok');
  `;
  const out = run(process.execPath, ['--input-type=module', '-e', script], project);
  assert(out.includes('testing entry ok'), out);
});

for (const resolution of ['Bundler', 'NodeNext']) {
  check(`index.d.ts, signing.d.ts and testing.d.ts compile against tests/types/{usage,signing-usage,testing-usage}.ts (tsc --strict, moduleResolution ${resolution})`, () => {
    copyFileSync(join(root, 'tests', 'types', 'usage.ts'), join(project, 'usage.ts'));
    copyFileSync(join(root, 'tests', 'types', 'signing-usage.ts'), join(project, 'signing-usage.ts'));
    copyFileSync(join(root, 'tests', 'types', 'testing-usage.ts'), join(project, 'testing-usage.ts'));
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'ES2022', module: resolution === 'Bundler' ? 'ESNext' : 'NodeNext',
        moduleResolution: resolution, lib: ['ES2022', 'DOM'], skipLibCheck: false, types: [],
      },
      files: ['usage.ts', 'signing-usage.ts', 'testing-usage.ts'],
    }));
    run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
  });
  // React's types (@types/react, a devDependency) resolve from the repository's node_modules.
  check(`react.d.ts compiles against tests/types/react-usage.tsx (tsc --strict, jsx react-jsx, moduleResolution ${resolution})`, () => {
    copyFileSync(join(root, 'tests', 'types', 'react-usage.tsx'), join(project, 'react-usage.tsx'));
    writeFileSync(join(project, 'tsconfig.react.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'ES2022', module: resolution === 'Bundler' ? 'ESNext' : 'NodeNext',
        moduleResolution: resolution, lib: ['ES2022', 'DOM'], skipLibCheck: false, types: [], jsx: 'react-jsx',
      },
      files: ['react-usage.tsx'],
    }));
    run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.react.json'], project);
  });
}

for (const resolution of ['Bundler', 'NodeNext']) {
  // Every code block of the package README, each a module, with what it takes from the
  // app around it declared in tests/readme/context.d.ts.
  check(`every js/jsx code block of the package README compiles (tsc --strict, moduleResolution ${resolution})`, () => {
    const snippets = readmeSnippets(join(root, 'npm', 'README.md'));
    assert(snippets.length >= 10, `only ${snippets.length} code blocks found`);
    copyFileSync(join(root, 'tests', 'readme', 'context.d.ts'), join(project, 'readme-context.d.ts'));
    for (const snippet of snippets) writeFileSync(join(project, snippet.file), snippet.source);
    writeFileSync(join(project, 'tsconfig.readme.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'ES2022', module: resolution === 'Bundler' ? 'ESNext' : 'NodeNext',
        moduleResolution: resolution, lib: ['ES2022', 'DOM'], skipLibCheck: false, types: [], jsx: 'react-jsx',
      },
      files: ['readme-context.d.ts', ...snippets.map((s) => s.file)],
    }));
    let output = '';
    try {
      run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.readme.json'], project);
    } catch (err) {
      output = String(err.stdout ?? err);
    }
    const errors = snippetErrors(output, snippets);
    assert(errors.length === 0 && output === '', `the README's code does not compile:\n${errors.join('\n') || output}`);
  });
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
