import fs from 'node:fs';
import path from 'node:path';
import { Marked } from 'marked';
import type { operations as Ops } from '../../generated/console';
import type { Deps } from '../../deps';
import { notFound } from '../../shared/errors';
import { ROOT_DIR } from '../../shared/paths';
import type { OperationCall, RequestContext } from '../types';
import type { ReplyOf } from '../contract-types';
import { asset, ASSET_CACHE_SECONDS, assetTable, basePath, escapeHtml, PAGE_CSP, pageAsset, serveAsset, type Asset } from '../documents';

type ConsoleHandler<O extends keyof Ops> = (call: OperationCall<unknown, Record<string, string>>, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;

/** The console's files: ours (web/console) and the renderer's (swagger-ui-dist), under the names the pages use. */
const ASSET_FILES: Record<string, string> = {
  'console.js': 'web/console/console.js',
  'key.js': 'web/console/key.js',
  'flow.js': 'web/console/flow.js',
  'workbench.js': 'web/console/workbench.js',
  'requests.js': 'web/console/requests.js',
  'webhooks.js': 'web/console/webhooks.js',
  'timeline.js': 'web/console/timeline.js',
  'console-base.css': 'web/console/console-base.css',
  'console-docs.css': 'web/console/console-docs.css',
  'console-workbench.css': 'web/console/console-workbench.css',
  'console-workbench-detail.css': 'web/console/console-workbench-detail.css',
  'swagger-ui-bundle.js': 'swagger-ui-dist/swagger-ui-bundle.js',
  'swagger-ui.css': 'swagger-ui-dist/swagger-ui.css',
  'favicon-32x32.png': 'swagger-ui-dist/favicon-32x32.png',
};

/** The guide's documents (docs/*.md), by the path they are served at below /guide (a Map: a topic is client input). */
const GUIDE_TOPICS = new Map<string, string>([
  ['', 'docs/partner-guide.md'],
  ['webhooks', 'docs/webhooks.md'],
]);

export function consoleOperations(deps: Deps) {
  const root = `${basePath(deps.config.publicBaseUrl)}/transfers/v1`;
  const assetFor = assetTable(ASSET_FILES);
  let page: Asset | undefined;
  const guides = new Map<string, Asset>();
  const page200 = (a: Asset, ctx: RequestContext) => serveAsset(a, ctx.headers['accept-encoding'], { headers: { 'Content-Security-Policy': PAGE_CSP } });

  const getConsole: ConsoleHandler<'getConsole'> = async (_call, ctx) => {
    page ??= pageAsset('web/console/console.html', root);
    return page200(page, ctx);
  };

  const guide = (topic: string, ctx: RequestContext) => {
    const file = GUIDE_TOPICS.get(topic);
    if (!file) throw notFound(`No guide chapter ${topic}.`, { topic });
    let a = guides.get(topic);
    if (!a) guides.set(topic, (a = asset(Buffer.from(renderGuide(path.join(ROOT_DIR, file), root)), 'text/html; charset=utf-8')));
    return page200(a, ctx);
  };
  const getGuide: ConsoleHandler<'getGuide'> = async (_call, ctx) => guide('', ctx);
  const getGuideTopic: ConsoleHandler<'getGuideTopic'> = async (call, ctx) => guide(call.params.topic, ctx);

  const getConsoleAsset: ConsoleHandler<'getConsoleAsset'> = async (call, ctx) => {
    const a = assetFor(call.params.asset);
    if (!a) throw notFound(`No console asset ${call.params.asset}.`, {});
    return serveAsset(a, ctx.headers['accept-encoding'], { cacheSeconds: ASSET_CACHE_SECONDS });
  };

  return { getConsole, getGuide, getGuideTopic, getConsoleAsset };
}

/**
 * A guide document as a page: Markdown rendered by marked, links between the guide's documents (`webhooks.md`)
 * pointed at their pages, headings given ids for the table of contents.
 */
export function renderGuide(file: string, root: string): string {
  const md = fs.readFileSync(file, 'utf8');
  const toc: Array<{ level: number; id: string; text: string }> = [];
  const used = new Set<string>();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }) {
        const html = this.parser.parseInline(tokens);
        const text = html.replace(/<[^>]+>/g, '');
        let id =
          text
            .toLowerCase()
            .replace(/&[a-z]+;|&#\d+;/g, '')
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-|-$/g, '') || 'section';
        while (used.has(id)) id += '-';
        used.add(id);
        if (depth === 2 || depth === 3) toc.push({ level: depth, id, text });
        return `<h${depth} id="${id}"><a class="anchor" href="#${id}" aria-hidden="true">#</a>${html}</h${depth}>\n`;
      },
      link({ href, title, tokens }) {
        const text = this.parser.parseInline(tokens);
        const local = /^(?:\.\/)?([a-z0-9-]+)\.md(#.*)?$/.exec(href);
        const target = local ? `${root}/console/guide${local[1] === 'partner-guide' ? '' : `/${local[1]}`}${local[2] ?? ''}` : href;
        return `<a href="${escapeHtml(target)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${text}</a>`;
      },
    },
  });
  const body = marked.parse(md, { async: false });
  const title = /^#\s+(.+)$/m.exec(md)?.[1] ?? 'Partner guide';
  const nav = toc.map((t) => `<li class="l${t.level}"><a href="#${t.id}">${t.text}</a></li>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Lanka Transfers</title>
<link rel="icon" href="${root}/console/assets/favicon-32x32.png">
<link rel="stylesheet" href="${root}/console/assets/console-base.css">
<link rel="stylesheet" href="${root}/console/assets/console-docs.css">
<link rel="stylesheet" href="${root}/console/assets/console-workbench.css">
<link rel="stylesheet" href="${root}/console/assets/console-workbench-detail.css">
</head>
<body class="guide">
<header class="bar">
  <a class="brand" href="${root}/console">Lanka Transfers <span>API reference console</span></a>
  <nav aria-label="Documents"><a href="${root}/console">Console</a><a href="${root}/console/guide" aria-current="${file.endsWith('partner-guide.md') ? 'page' : 'false'}">Partner guide</a><a href="${root}/console/guide/webhooks">Webhooks</a><a href="${root}/openapi.yaml">OpenAPI</a><a href="${root}/postman.json" download="lanka-transfers.postman_collection.json">Postman</a></nav>
</header>
<div class="guide-layout">
<nav class="toc" aria-label="Contents"><h2>Contents</h2><ul>${nav}</ul></nav>
<main class="doc">${body}</main>
</div>
</body>
</html>
`;
}
