// A pass-through proxy in front of an emulator that makes every Content-Security-Policy
// violation observable from Node, in any engine: it adds `report-uri /__csp-reports` to
// each policy the emulator sends (a directive that allows nothing; the policy is
// otherwise passed on as it is) and collects the reports the browser POSTs there.
// The page's own scripts are not involved, so violations from before any script could
// listen (the wasm compile at load) and from a Worker (whose policy is its script's
// header) are seen too; Chromium, Firefox ESR and WebKitGTK all send them
// (application/csp-report).
//
// `rewritePolicy(csp)` changes the policy on the way (the control: a policy without
// 'wasm-unsafe-eval').
import http from 'node:http';

export const REPORT_PATH = '/__csp-reports';

/** Starts the proxy for `upstream` (http://localhost:PORT); resolves to { origin, reports, clear, settled, close }. */
export async function startReportingProxy(upstream, { rewritePolicy = (csp) => csp } = {}) {
  const target = new URL(upstream);
  const reports = [];
  let lastReportAt = 0;

  const server = http.createServer((req, res) => {
    if (req.url === REPORT_PATH) {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        reports.push(describeReport(body));
        lastReportAt = Date.now();
        res.writeHead(204).end();
      });
      return;
    }
    const forwarded = http.request({
      host: target.hostname, port: target.port, method: req.method, path: req.url,
      headers: { ...req.headers, host: target.host },
    }, (upstreamRes) => {
      const headers = { ...upstreamRes.headers };
      const csp = headers['content-security-policy'];
      if (csp) headers['content-security-policy'] = `${rewritePolicy(csp)}; report-uri ${REPORT_PATH}`;
      res.writeHead(upstreamRes.statusCode, headers);
      upstreamRes.pipe(res);
    });
    forwarded.on('error', (e) => res.writeHead(502).end(`proxy: ${e.message}`));
    req.pipe(forwarded);
  });
  await new Promise((resolve) => server.listen(0, 'localhost', resolve));

  return {
    origin: `http://localhost:${server.address().port}`,
    reports,
    clear() {
      reports.length = 0;
    },
    /** Waits until no report has arrived for `quietMs` (reports are sent asynchronously). */
    async settled(quietMs = 1_500) {
      const started = Date.now();
      while (Date.now() - Math.max(lastReportAt, started) < quietMs) await new Promise((r) => setTimeout(r, 100));
      return [...reports];
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One line per report: the directive, what was blocked, where. */
function describeReport(body) {
  let report;
  try {
    report = JSON.parse(body)['csp-report'];
  } catch {
    return `unparsable report: ${body.slice(0, 300)}`;
  }
  if (!report) return `unexpected report: ${body.slice(0, 300)}`;
  const directive = report['effective-directive'] ?? report['violated-directive'];
  const where = report['source-file'] ? ` (${report['source-file']}:${report['line-number'] ?? '?'})` : '';
  return `${directive} blocked ${report['blocked-uri'] || '(inline)'} in ${report['document-uri']}${where}`;
}
