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
import { MCP_PATH } from '../mcp/api';
import { TOOLS, type Tool } from '../mcp/tools';
import { loadContract } from '../surface';

type ConsoleHandler<O extends keyof Ops> = (call: OperationCall<unknown, Record<string, string>>, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;

/** The console's files: ours (web/console) and the renderer's (swagger-ui-dist), under the names the pages use. */
const ASSET_FILES: Record<string, string> = {
  'console.js': 'web/console/console.js',
  'key.js': 'web/console/key.js',
  'flow.js': 'web/console/flow.js',
  'workbench.js': 'web/console/workbench.js',
  'local-time.js': 'web/console/local-time.js',
  'requests.js': 'web/console/requests.js',
  'webhooks.js': 'web/console/webhooks.js',
  'timeline.js': 'web/console/timeline.js',
  'console-base.css': 'web/console/console-base.css',
  'console-docs.css': 'web/console/console-docs.css',
  'console-workbench.css': 'web/console/console-workbench.css',
  'console-workbench-detail.css': 'web/console/console-workbench-detail.css',
  'console-agents.css': 'web/console/console-agents.css',
  'agents.js': 'web/console/agents.js',
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
    page ??= consolePage(root, deps.config.publicBaseUrl);
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
 * The console's page: web/console/console.html for this deployment, naming the sandbox helper's targets, the MCP
 * server's address and its tools (from the lists the API and the MCP server use, so the page cannot drift from them).
 */
function consolePage(root: string, publicBaseUrl: string): Asset {
  const html = pageAsset('web/console/console.html', root).plain.toString('utf8');
  const targets = advanceTargets().map((t) => `<code>${escapeHtml(t)}</code>`);
  const list = targets.length > 1 ? `${targets.slice(0, -1).join(', ')} or ${targets[targets.length - 1]}` : targets.join('');
  const filled = html
    .replaceAll('{{advance_targets}}', list)
    .replaceAll('{{mcp_url}}', escapeHtml(`${publicBaseUrl}${MCP_PATH}`))
    .replaceAll('{{mcp_tools}}', TOOLS.map(toolRow).join('\n'));
  return asset(Buffer.from(filled), 'text/html; charset=utf-8');
}

/**
 * The first sentence of a tool's description: up to the first full stop followed by a capital letter or the end
 * (so "e.g. 2026-12-01" does not end it).
 */
export function firstSentence(description: string): string {
  const m = /^([\s\S]+?[.!?])(?=\s+[A-Z`]|\s*$)/.exec(description.trim());
  return m ? m[1] : description.trim();
}

/** Text for the page, `code` spans (between backticks) as <code>. */
const prose = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/** One row of the console's table of MCP tools: its name and title, what it does, and whether it acts. */
function toolRow(t: Tool): string {
  const kind = t.acts ? '<span class="mcp-kind acts">acts</span>' : '<span class="mcp-kind reads">reads</span>';
  return (
    `<tr data-tool="${escapeHtml(t.name)}"><th scope="row"><code>${escapeHtml(t.name)}</code>` +
    `<span class="mcp-title">${escapeHtml(t.annotations.title)}</span></th>` +
    `<td>${prose(firstSentence(t.description))}</td><td>${kind}</td></tr>`
  );
}

const ADVANCE_PATH = '/test_helpers/bookings/{booking_ref}/advance';

/**
 * The states the sandbox helper `POST /test_helpers/bookings/{booking_ref}/advance` moves a booking to, in order: the
 * enum of its `to` in the Transfers contract, so the console lists exactly what the API takes.
 */
export function advanceTargets(): string[] {
  const contract: unknown = loadContract('transfers-v1.yaml');
  /** A member of an object of the contract, following a local `$ref` (`#/components/…`) where there is one. */
  const step = (node: unknown, key: string): unknown => {
    for (let hops = 0; hops < 10 && isObject(node) && typeof node.$ref === 'string'; hops++)
      node = node.$ref
        .replace(/^#\//, '')
        .split('/')
        .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
        .reduce<unknown>((n, k) => (isObject(n) ? n[k] : undefined), contract);
    return isObject(node) ? node[key] : undefined;
  };
  const keys = ['paths', ADVANCE_PATH, 'post', 'requestBody', 'content', 'application/json', 'schema', 'properties', 'to', 'enum'];
  const targets = keys.reduce(step, contract);
  if (!Array.isArray(targets) || !targets.length || !targets.every((t): t is string => typeof t === 'string'))
    throw new Error(`contracts/transfers-v1.yaml: no enum of \`to\` for POST ${ADVANCE_PATH}`);
  return targets;
}

const isObject = (n: unknown): n is Record<string, unknown> => typeof n === 'object' && n !== null;

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
