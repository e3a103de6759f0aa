// The peer as an app ships it: bench/peer-entry.mjs bundled by esbuild (minified ESM, for
// the browser), for the size comparison and the browser pages, and a lower bound of it.
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { measure } from '../scripts/size.mjs';
import { sealBundle, randomScalar, checkStamp } from '../tests/support/fixtures.mjs';
import { PAYLOAD } from './suite.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
export const esbuildVersion = esbuild.version;

/**
 * The lower bound for the peer: every @noble/* import resolved to @turnkey/crypto's copy
 * (npm installs two @noble/curves: 1.9.0, pinned by @turnkey/crypto, and a 1.9.x for the
 * stamper), and every module marked side-effect free, so that esbuild drops what the three
 * operations never reach (@peculiar/x509, reflect-metadata, … which @turnkey/crypto's index
 * pulls in).
 */
export const leanPlugin = {
  name: 'lean-peer',
  setup(build) {
    const cryptoDir = join(root, 'node_modules/@turnkey/crypto');
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData?.lean) return undefined;
      let r;
      if (args.path.startsWith('@noble/')) {
        r = await build.resolve(args.path, { resolveDir: cryptoDir, kind: args.kind, pluginData: { lean: true } });
      }
      if (!r || r.errors.length) {
        r = await build.resolve(args.path, { resolveDir: args.resolveDir, importer: args.importer, kind: args.kind, pluginData: { lean: true } });
      }
      if (r.errors.length) return { errors: r.errors };
      // Paths the browser field disables (`crypto: false`) resolve to no file: leave them be.
      if (!r.path.startsWith('/')) return undefined;
      return { path: r.path, external: r.external, namespace: r.namespace, sideEffects: false };
    });
  },
};

/** esbuild --bundle --minify of bench/peer-entry.mjs for the browser; sizes and largest inputs. */
export async function bundlePeer(outfile, plugins = []) {
  const r = await esbuild.build({
    entryPoints: [join(here, 'peer-entry.mjs')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    outfile,
    metafile: true,
    logLevel: 'warning',
    plugins,
  });
  const byPackage = {};
  for (const [file, v] of Object.entries(Object.values(r.metafile.outputs)[0].inputs)) {
    const parts = file.split('node_modules/').slice(1).map((p) => p.split('/').slice(0, p.startsWith('@') ? 2 : 1).join('/'));
    const name = parts.length === 0 ? file : parts.length === 1 ? parts[0] : `${parts.at(-1)} (under ${parts.at(-2)})`;
    byPackage[name] = (byPackage[name] ?? 0) + v.bytesInOutput;
  }
  return { ...measure(dirname(outfile), basename(outfile)), byPackage };
}

/** The lean bundle must still do the three operations (checked in Node, pure-JS stamper). */
export async function checkLeanBundle(file) {
  const lean = await import(pathToFileURL(file).href);
  const kp = lean.generateP256KeyPair();
  const priv = lean.decryptCredentialBundle(sealBundle(randomScalar(), kp.publicKeyUncompressed), kp.privateKey);
  const pub = lean.uint8ArrayToHexString(lean.getPublicKey(priv, true));
  const st = await new lean.ApiKeyStamper({ apiPublicKey: pub, apiPrivateKey: priv, runtimeOverride: 'purejs' }).stamp(PAYLOAD);
  if (!checkStamp(st.stampHeaderValue, PAYLOAD, pub).ok) throw new Error('the lean peer bundle does not stamp correctly');
}

/** The bundle's largest inputs, "package bytes, ..." (bytes in the minified output). */
export const topInputs = (b, n = 8) => Object.entries(b.byPackage).sort((x, y) => y[1] - x[1]).slice(0, n)
  .map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ');
