/**
 * The readable API reference of the local stack: Swagger UI from the swagger-ui-dist package (served
 * from node_modules, no CDN) over the OpenAPI document generated from the contract. Mounted at
 * /api-docs/ by the web app's dev server (web/vite.config.ts) and by the mailbox server.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildOpenApi } from '../../shared/contract/openapi';

export const API_DOCS_PATH = '/api-docs';

/** The files of swagger-ui-dist the page loads, with their types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

function distDir(): string {
  const from = typeof __filename === 'string' ? __filename : path.join(process.cwd(), 'package.json');
  return path.dirname(createRequire(from).resolve('swagger-ui-dist/package.json'));
}

export function apiDocsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Report Profitability Service API</title>
<link rel="stylesheet" href="./swagger-ui.css">
<link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="./swagger-ui-bundle.js"></script>
<script src="./swagger-ui-standalone-preset.js"></script>
<script src="./init.js"></script>
</body>
</html>`;
}

/**
 * Answers a request under /api-docs; false for any other path. `apiUrl` (the API's origin) becomes
 * the document's server, so "Try it out" reaches the API from a page on another port.
 */
/** No inline script: the page works under a Content-Security-Policy of script-src 'self'. */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: './openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

export async function serveApiDocs(
  req: IncomingMessage,
  res: ServerResponse,
  opts: { apiUrl?: string } = {},
): Promise<boolean> {
  const url = (req.url ?? '/').split('?')[0]!;
  if (url !== API_DOCS_PATH && !url.startsWith(`${API_DOCS_PATH}/`)) return false;
  const name = url.slice(API_DOCS_PATH.length + 1);
  if (url === API_DOCS_PATH) {
    res.writeHead(302, { location: `${API_DOCS_PATH}/` });
    res.end();
  } else if (name === '' || name === 'index.html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(apiDocsPage());
  } else if (name === 'init.js') {
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
    res.end(INIT_SCRIPT);
  } else if (name === 'openapi.json') {
    const doc = buildOpenApi();
    if (opts.apiUrl) doc.servers = [{ url: opts.apiUrl.replace(/\/api\/?$/, '').replace(/\/+$/, '') || '/' }];
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify(doc));
  } else if (Object.prototype.hasOwnProperty.call(ASSETS, name)) {
    const body = await readFile(path.join(distDir(), name));
    res.writeHead(200, { 'content-type': ASSETS[name], 'content-length': body.byteLength });
    res.end(body);
  } else {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`Not found: the API reference is at ${API_DOCS_PATH}/`);
  }
  return true;
}
