// Starting the local emulator (target/release/emulator, built if missing) from a test, and
// calling it the way an integrator's backend would (HTTP Basic added on the way).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EMULATOR = `${ROOT}target/release/emulator`;
export const BASIC = `Basic ${Buffer.from('emulator-token:emulator-secret').toString('base64')}`;

/** Starts the emulator with `args` (after `--mode strict --port 0`); resolves to `{ proc, origin }`. */
export async function startEmulator(args = []) {
  if (!existsSync(EMULATOR)) {
    execFileSync('cargo', ['build', '--release', '-p', 'emulator'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  const proc = spawn(EMULATOR, ['--mode', 'strict', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const origin = await new Promise((resolve, reject) => {
    let out = '';
    // The request log (stderr) is kept for a failed start only.
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk) => {
      if (out.length < 20_000) out += chunk;
    });
    const timer = setTimeout(() => reject(new Error(`emulator did not start: ${out}`)), 15_000);
    proc.on('exit', (code) => reject(new Error(`emulator exited (${code}): ${out}`)));
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /emulator listening on (http:\/\/localhost:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { proc, origin };
}

/** `call`: the emulator's API from Node (Basic auth); `transport`: a WalletClient transport, recording what was sent. */
export function emulatorApi(origin) {
  const call = async (method, path, body, headers = {}) => {
    const res = await fetch(origin + path, {
      method, headers: { Authorization: BASIC, 'Content-Type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const sent = [];
  /** The integrator backend's job: add Basic auth, forward, hand back the answer. */
  const transport = async ({ method, path, headers, body }) => {
    const res = await fetch(origin + path, { method, headers: { ...headers, Authorization: BASIC, 'Content-Type': 'application/json' }, body });
    const text = await res.text();
    sent.push({ method, path, headers, body, status: res.status, response: text });
    return { status: res.status, headers: res.headers, body: text };
  };
  return { call, transport, sent };
}
