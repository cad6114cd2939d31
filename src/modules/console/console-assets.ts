import { existsSync, readFileSync } from 'node:fs';
import sea from 'node:sea';
import { fileURLToPath } from 'node:url';
import type { Request, Response, Router } from 'express';
import { notFound, unavailable } from '../../errors';

/**
 * The console's files (scripts/build-console.mjs → dist/console/, with their Brotli and gzip forms), served by
 * TARS itself: from dist/console beside the bundle in a checkout, from the executable's own assets
 * (console/<name>, scripts/build-binary.mjs) in the standalone executable. Nothing is fetched from elsewhere.
 *
 * The page is answered with a strict Content-Security-Policy: scripts and styles only from this origin (no inline
 * script or style, no eval), connections only to this origin, images from it or data: (the MFA QR code), no
 * framing (frame-ancestors 'none', and X-Frame-Options for older browsers), no plugins, no base or form
 * redirection; and Trusted Types required, so that no code of the page can write HTML from a string.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly br?: Buffer;
  readonly gzip?: Buffer;
}

type Files = ReadonlyMap<string, Asset>;

/** Where dist/console is: beside the bundle (dist/tars.cjs), or, running from the sources, under the repository. */
function consoleDir(): string | undefined {
  const candidates = [new URL('console/', import.meta.url), new URL('../../../dist/console/', import.meta.url)];
  return candidates.map((u) => fileURLToPath(u)).find((d) => existsSync(`${d}manifest.json`));
}

function load(): Files | undefined {
  let read: (name: string) => Buffer | undefined;
  if (sea.isSea()) {
    read = (name) => {
      try {
        return Buffer.from(sea.getAsset(`console/${name}`));
      } catch {
        return undefined;
      }
    };
  } else {
    const dir = consoleDir();
    if (!dir) return undefined;
    read = (name) => (existsSync(`${dir}${name}`) ? readFileSync(`${dir}${name}`) : undefined);
  }
  const manifest = read('manifest.json');
  if (!manifest) return undefined;
  const { files } = JSON.parse(manifest.toString('utf8')) as { files: string[] };
  const map = new Map<string, Asset>();
  for (const name of files) {
    const body = read(name);
    if (!body) continue;
    map.set(name, {
      type: TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream',
      body,
      br: read(`${name}.br`),
      gzip: read(`${name}.gz`),
    });
  }
  return map;
}

let files: Files | undefined | null = null;
/** The files, read once (a few tens of kB); undefined when the console was not built. */
const assets = (): Files | undefined => (files === null ? (files = load()) : files);

/** Sends a file in the best encoding the client accepts (Brotli, then gzip), as made at build time. */
function send(req: Request, res: Response, asset: Asset): void {
  const accepts = String(req.headers['accept-encoding'] ?? '');
  const br = asset.br && /\bbr\b/.test(accepts) ? asset.br : undefined;
  const gzip = !br && asset.gzip && /\bgzip\b/.test(accepts) ? asset.gzip : undefined;
  res.setHeader('Content-Type', asset.type);
  res.setHeader('Vary', 'Accept-Encoding');
  if (br) res.setHeader('Content-Encoding', 'br');
  else if (gzip) res.setHeader('Content-Encoding', 'gzip');
  const body = br ?? gzip ?? asset.body;
  res.setHeader('Content-Length', body.length);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/** A path the console's page answers (its screens, /wallboard, /tv …): not the API's, nor another page's. */
const SCREEN_PATH = /^\/(?!(?:v2|docs|metrics|healthz|assets)(?:\/|$))[a-z0-9/-]*$/;

/**
 * The console at `/` and at the path of each of its screens (the history API's), for a browser (Accept:
 * text/html); its files under /assets/ (hashed names: kept a year by browsers). Mounted after the API's routes:
 * a JSON client asking for an unknown path still gets the API's 404.
 */
export function mountConsole(router: Router): void {
  router.get('/assets/:file', (req, res) => {
    const asset = assets()?.get(`assets/${req.params.file}`);
    if (!asset) throw notFound(`Route GET ${req.path}`);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    send(req, res, asset);
  });
  router.get(SCREEN_PATH, (req, res, next) => {
    if (req.path !== '/' && !req.accepts('html')) return next();
    if (req.path !== '/' && req.accepts(['json', 'html']) === 'json') return next();
    const page = assets()?.get('index.html');
    if (!page) throw unavailable('The console was not built with this server (npm run build makes it)');
    for (const [k, v] of Object.entries(PAGE_HEADERS)) res.setHeader(k, v);
    res.setHeader('Cache-Control', 'no-cache');
    send(req, res, page);
  });
}
