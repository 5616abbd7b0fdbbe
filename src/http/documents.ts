import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT_DIR } from '../shared/paths';

export { escapeHtml } from '../shared/html';
import type { Document, HandlerResult } from './types';

/**
 * Files the service serves to browsers (the consoles' pages, scripts and styles, and the renderer they use from
 * node_modules), read once and kept in memory with a gzip copy. Nothing a page needs comes from anywhere else.
 */
export interface Asset {
  contentType: string;
  plain: Buffer;
  gzip: Buffer;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

/** How long browsers may keep an asset: assets change only with a deployment. */
export const ASSET_CACHE_SECONDS = 300;

export function asset(bytes: Buffer, contentType: string): Asset {
  return { contentType, plain: bytes, gzip: gzipSync(bytes, { level: 9 }) };
}

/** A file of the repository (web/…), or of an installed package (`swagger-ui-dist/swagger-ui.css`). */
export function fileAsset(file: string): Asset {
  const full = path.isAbsolute(file) ? file : fs.existsSync(path.join(ROOT_DIR, file)) ? path.join(ROOT_DIR, file) : require.resolve(file);
  const type = TYPES[path.extname(full)];
  if (!type) throw new Error(`no content type for ${file}`);
  return asset(fs.readFileSync(full), type);
}

/**
 * The files a console serves, by the name its pages use (`console.js` → `web/console/console.js`), each read on its
 * first request and kept. Unknown names are undefined (the caller answers 404).
 */
export function assetTable(files: Record<string, string>): (name: string) => Asset | undefined {
  const loaded = new Map<string, Asset>();
  return (name) => {
    if (!Object.hasOwn(files, name)) return undefined;
    let a = loaded.get(name);
    if (!a) loaded.set(name, (a = fileAsset(files[name])));
    return a;
  };
}

/** A page: the HTML in `file` with `{{root}}` replaced by the path the service is reached under. */
export function pageAsset(file: string, root: string): Asset {
  return asset(Buffer.from(fs.readFileSync(path.join(ROOT_DIR, file), 'utf8').replaceAll('{{root}}', root)), TYPES['.html']);
}

/**
 * The answer for an asset: gzip-compressed when the client accepts it (the audit row keeps the digest of the
 * bytes sent). `headers` adds e.g. a Content-Security-Policy to a page.
 */
export function serveAsset(
  a: Asset,
  acceptEncoding: unknown,
  opts: { cacheSeconds?: number; headers?: Record<string, string> } = {},
): HandlerResult & { status: 200; document: Document } {
  const gzip = typeof acceptEncoding === 'string' && /\bgzip\b/.test(acceptEncoding);
  return {
    status: 200,
    document: { contentType: a.contentType, bytes: gzip ? a.gzip : a.plain, cacheSeconds: opts.cacheSeconds },
    headers: { Vary: 'Accept-Encoding', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}), ...(opts.headers ?? {}) },
  };
}

/**
 * A page's Content-Security-Policy: scripts, styles, images and requests from this origin only (inline styles are
 * allowed for the renderer's own). It is what makes "works offline, loads nothing from elsewhere" hold.
 */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/** A weak validator for a JSON answer: the same body, the same ETag. */
export function weakETag(body: unknown): string {
  return `W/"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
}

/** The base path of the deployment (PUBLIC_BASE_URL may sit below a path prefix). */
export const basePath = (publicBaseUrl: string) => new URL(publicBaseUrl).pathname.replace(/\/+$/, '');
