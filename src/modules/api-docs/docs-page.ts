import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sea from 'node:sea';
import type { Router } from 'express';
import { notFound } from '../../errors';
import DOCS_ASSETS from './docs-assets.json';

/**
 * GET /docs: Swagger UI over /v2/openapi.json, served entirely by TARS (it works on an air-gapped host). Its
 * files come from the swagger-ui-dist package: read from node_modules in a checkout, and carried inside the
 * standalone executable as SEA assets of the same names (scripts/build-binary.mjs reads docs-assets.json).
 * The Content-Security-Policy keeps the browser from loading or sending anything to another origin.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TARS API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/tars-docs.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io for its badge.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v2/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Readonly<Record<string, string>> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

let files: Map<string, Buffer> | undefined;

/** The page's files by name, loaded on first use. */
function assets(): Map<string, Buffer> {
  if (files) return files;
  const dir = sea.isSea() ? '' : dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  files = new Map(DOCS_ASSETS.map((name) => [name, sea.isSea() ? Buffer.from(sea.getAsset(name)) : readFileSync(join(dir, name))]));
  files.set('tars-docs.js', Buffer.from(INIT));
  return files;
}

export function mountDocsPage(router: Router): void {
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.type('html').send(PAGE);
  });
  router.get('/docs/assets/:file', (req, res) => {
    const body = assets().get(req.params.file);
    if (!body) throw notFound(`Route GET ${req.path}`);
    res.setHeader('Content-Type', TYPES[req.params.file.slice(req.params.file.lastIndexOf('.'))] ?? 'application/octet-stream');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.send(body);
  });
}
