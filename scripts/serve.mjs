#!/usr/bin/env node
// A tiny static file server for the demo and the end-to-end tests. Loopback only.
//
// CLI:    node scripts/serve.mjs [--port 8787] /=examples/wallet /pkg/=pkg
// Module: const srv = await serveStatic({ '/': dir }, { port: 0 }); srv.port; srv.requests; await srv.close();
//         opts.headers: extra headers on every response (the bench sends COOP + COEP, so that
//         its pages are cross-origin isolated and performance.now() is at its finest).
import http from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { resolve, join, extname, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

function fileFor(mounts, urlPath) {
  // Longest mount prefix wins.
  for (const [prefix, root] of mounts) {
    if (!urlPath.startsWith(prefix)) continue;
    const rest = urlPath.slice(prefix.length);
    let p = resolve(join(root, rest));
    if (p !== root && !p.startsWith(root + sep)) return null; // no escaping the root
    try {
      if (statSync(p).isDirectory()) p = join(p, 'index.html');
      if (statSync(p).isFile()) return p;
    } catch {
      return null;
    }
    return null;
  }
  return null;
}

/**
 * @param {Record<string, string>} mountMap URL prefix ("/", "/pkg/") -> directory
 * @param {{ port?: number, host?: string[], log?: boolean, headers?: Record<string, string> }} [opts]
 */
export async function serveStatic(mountMap, opts = {}) {
  const mounts = Object.entries(mountMap)
    .map(([prefix, dir]) => [prefix.endsWith('/') ? prefix : `${prefix}/`, resolve(dir)])
    .sort((a, b) => b[0].length - a[0].length);
  const requests = [];
  const handler = (req, res) => {
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const file = req.method === 'GET' || req.method === 'HEAD' ? fileFor(mounts, urlPath) : null;
    const status = file ? 200 : 404;
    const type = file ? MIME[extname(file)] || 'application/octet-stream' : 'text/plain; charset=utf-8';
    requests.push({ path: urlPath, status, type });
    if (opts.log) console.log(`${req.method} ${urlPath} ${status}`);
    if (!file) {
      res.writeHead(404, { ...opts.headers, 'content-type': type }).end('not found\n');
      return;
    }
    res.writeHead(200, { ...opts.headers, 'content-type': type, 'cache-control': 'no-store' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  };

  const hosts = opts.host ?? ['127.0.0.1', '::1'];
  const servers = [];
  let port = opts.port ?? 0;
  for (const host of hosts) {
    const server = http.createServer(handler);
    try {
      await new Promise((ok, fail) => {
        server.once('error', fail);
        server.listen(port, host, ok);
      });
    } catch (err) {
      // IPv6 loopback may be unavailable; the first (IPv4) address must work.
      if (servers.length === 0) throw err;
      continue;
    }
    port = server.address().port;
    servers.push(server);
  }
  return {
    port,
    requests,
    close: () => Promise.all(servers.map((s) => new Promise((ok) => {
      s.closeAllConnections?.();
      s.close(() => ok());
    }))),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  let port = 8787;
  const mountMap = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--port') port = Number(args[++i]);
    else {
      const eq = args[i].indexOf('=');
      if (eq < 1) {
        console.error(`serve: expected PREFIX=DIR, got ${args[i]}`);
        process.exit(2);
      }
      mountMap[args[i].slice(0, eq)] = args[i].slice(eq + 1);
    }
  }
  if (Object.keys(mountMap).length === 0) mountMap['/'] = '.';
  const srv = await serveStatic(mountMap, { port, log: true });
  console.log(`serving ${Object.entries(mountMap).map(([p, d]) => `${p} -> ${d}`).join(', ')} at http://localhost:${srv.port}/ (Ctrl-C to stop)`);
  const stop = () => srv.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
