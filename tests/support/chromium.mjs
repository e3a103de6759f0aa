// Debian's Chromium as every headless driver here launches it (tests/passkey, tests/e2e,
// tests/vite, bench): without the background-networking flags it floods this machine's
// closed network with refused connections; WebAuthn needs pages on http://localhost.
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];

/** Launches it through playwright-core's `chromium`. */
export function launchChromium(chromium, extraArgs = []) {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
