import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../shared/errors';
import { isLockTimeout } from '../../data/errors';
import type { Deps } from '../../deps';
import { ERROR_STATUS, errorHeaders } from '../errors';
import { createSurface, type ContractSurface } from '../surface';
import { partnerKeyAccess } from '../transfers/api';
import type { HandlerResult, OperationCall, RequestContext } from '../types';
import { withParamsErrors } from './params';
import { ToolSession, type ToolAnswer } from './session';
import { accessRefusal, outputSchemaOf, TOOLS, type Tool } from './tools';

export const MCP_PATH = '/mcp';
export const PROTECTED_RESOURCE_PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'];

/** Protocol servers kept at rest for reuse (at most; more are made when more requests run at once). */
const IDLE_SERVERS = 16;
const SERVER_INFO = { name: 'lanka-transfers', title: 'Lanka Transfers', version: '1.0.0' };
const INSTRUCTIONS =
  'Private airport and intercity transfers in Sri Lanka. Quote with quote_transfer (find_place helps with names), then prepare_booking and show its summary to the human; book with confirm_booking only after they agree. Cancelling works the same way: preview_cancellation, then cancel_booking. A sandbox key books in the sandbox only.';

/** JSON-RPC's error codes for what the HTTP layer refuses (the SDK's own for what it refuses). */
const RPC_CODE: Partial<Record<AppError['code'], number>> = { invalid_request: -32600, method_not_allowed: -32000, unauthorized: -32001 };

function mcpError(deps: Deps) {
  const metadata = `${deps.config.publicBaseUrl}${PROTECTED_RESOURCE_PATHS[1]}`;
  return (_ctx: RequestContext | undefined, err: AppError): HandlerResult => ({
    status: ERROR_STATUS[err.code],
    body: { jsonrpc: '2.0', id: null, error: { code: RPC_CODE[err.code] ?? -32000, message: err.message, data: { code: err.code, details: err.details } } },
    headers: {
      ...errorHeaders(err),
      ...(err.code === 'unauthorized' ? { 'WWW-Authenticate': `Bearer resource_metadata="${metadata}"` } : {}),
      ...(err.code === 'method_not_allowed' ? { Allow: 'POST' } : {}),
    },
  });
}

/** Each tool's arguments checked against its inputSchema (compiled once). */
function argumentChecks(): Map<string, ValidateFunction> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return new Map(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));
}

/**
 * A tool's answer, whatever happened: a refusal the service raised (a database that stopped answering) is the
 * tool's error with its code; anything else is a bug, logged, and answered `internal_error` with nothing of it (a
 * thrown error would reach the client as the SDK's JSON-RPC error with its message). Either way what the tool wrote
 * so far is rolled back.
 */
async function ran(tool: Tool, args: Record<string, unknown>, session: ToolSession): Promise<ToolAnswer> {
  try {
    return (await accessRefusal(tool, session)) ?? (await tool.run(args, session));
  } catch (e) {
    await session.abandon();
    if (e instanceof AppError) return { error: { code: e.code, message: e.message, details: e.details } };
    const { logger } = session.ctx.deps;
    if (isLockTimeout(e)) {
      logger.warn(
        { err: e, requestId: session.ctx.requestId, tool: tool.name },
        'a row stayed locked past lock_timeout: the tool answered service_unavailable',
      );
      return { error: { code: 'service_unavailable', message: 'The service is busy; retry with the same idempotency key.', details: {} } };
    }
    logger.error({ err: e, requestId: session.ctx.requestId, tool: tool.name }, 'unhandled error in an MCP tool');
    return { error: { code: 'internal_error', message: 'An internal error occurred; it has been logged.', details: {} } };
  }
}

/** The tools as tools/list serves them: schemas from the contracts, annotations saying what each does. */
const listed = () =>
  TOOLS.map((t) => ({
    name: t.name,
    title: t.annotations.title,
    description: t.description,
    inputSchema: t.inputSchema as { type: 'object' },
    outputSchema: outputSchemaOf(t) as { type: 'object' },
    annotations: t.annotations,
  }));

function toolResult(a: ToolAnswer): CallToolResult {
  if ('error' in a) {
    const error = { code: a.error.code, message: a.error.message, details: a.error.details ?? {} };
    return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }], structuredContent: { error } };
  }
  return { content: [{ type: 'text', text: a.text }], structuredContent: a.structured };
}

/** The same answer as the audit row keeps it: the structured content, its prose left out. */
function audited(body: unknown): unknown {
  const msg = body as { result?: { content?: Array<{ type: string; text?: string }>; structuredContent?: unknown } } | null;
  const content = msg?.result?.content;
  if (!content || msg?.result?.structuredContent === undefined) return body;
  return {
    ...msg,
    result: { ...msg.result, content: content.map((c) => (c.type === 'text' ? { type: 'text', text: '[the structured content, in words]' } : c)) },
  };
}

/**
 * The MCP server (contracts/mcp.yaml): the official SDK's protocol server and its Streamable HTTP transport (web
 * standard flavour, stateless, JSON answers) behind the service's own pipeline, so every MCP request is routed,
 * authenticated, rate limited, audited and committed like any other. A transport per request (no session: any
 * instance answers), protocol servers reused. Tool calls run the Transfers operations (tools.ts).
 */
export async function createMcpSurface(deps: Deps, transfers: ContractSurface) {
  const checks = argumentChecks();
  const byName = new Map<string, Tool>(TOOLS.map((t) => [t.name, t]));
  const protectedResource = async () => ({
    status: 200,
    body: {
      resource: `${deps.config.publicBaseUrl}${MCP_PATH}`,
      authorization_servers: [],
      bearer_methods_supported: ['header'],
      resource_name: 'Lanka Transfers MCP server',
      resource_documentation: `${deps.config.publicBaseUrl}/transfers/v1/console#ai-agents`,
    },
  });
  const notOffered = async (): Promise<HandlerResult> => {
    throw new AppError('method_not_allowed', 'This MCP server is stateless: POST each JSON-RPC message to /mcp (no event stream, no session to end).');
  };

  /** The protocol server: its handlers read the request's session from the transport's authInfo (see postMcp). */
  function protocolServer(): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed() }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const session = extra.authInfo?.extra?.session as ToolSession;
      const tool = byName.get(req.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${req.params.name}: tools/list names the tools.`);
      const args = req.params.arguments ?? {};
      const check = checks.get(tool.name)!;
      if (!check(args)) {
        const where = (check.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? ''}`.trim()).slice(0, 10);
        throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${where.join('; ')}`);
      }
      return toolResult(await ran(tool, args, session));
    });
    return server;
  }
  // Protocol servers at rest, reused one request at a time (making one costs more than the rest of a tools/list); a
  // transport is made per request, as the SDK's stateless mode requires.
  const idle: Server[] = [];

  async function postMcp(call: OperationCall, ctx: RequestContext): Promise<HandlerResult> {
    const session = new ToolSession(ctx, transfers);
    const server = idle.pop() ?? protocolServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const headers = new Headers();
      for (const name of ['accept', 'content-type', 'mcp-protocol-version']) {
        const v = ctx.headers[name];
        if (typeof v === 'string') headers.set(name, v);
      }
      const response = await transport.handleRequest(new Request(`http://mcp.invalid${MCP_PATH}`, { method: 'POST', headers }), {
        parsedBody: call.body,
        authInfo: { token: '', clientId: ctx.partner!.partnerId, scopes: [], extra: { session } },
      });
      const answered = await response.text();
      const parsed: unknown = answered ? JSON.parse(answered) : undefined;
      const body = parsed === undefined ? undefined : withParamsErrors(call.body, parsed);
      const text = body === parsed ? answered : JSON.stringify(body);
      return session.committing({ status: response.status, rawBody: text, body, auditBody: audited(body) });
    } finally {
      await server.close();
      if (idle.length < IDLE_SERVERS) idle.push(server);
    }
  }

  return createSurface(
    {
      name: 'mcp',
      contract: 'mcp.yaml',
      apiRoot: '/',
      operations: {
        postMcp,
        getMcp: notOffered,
        deleteMcp: notOffered,
        getProtectedResource: protectedResource,
        getProtectedResourceForMcp: protectedResource,
      },
      ...partnerKeyAccess(deps),
      unauthorized: () => new AppError('unauthorized', 'A valid API key is required: send Authorization: Bearer <key> (a sandbox key to start).'),
      errorResult: mcpError(deps),
      commonHeaders: (ctx) => ({ 'X-Service-Env': ctx?.env ?? 'none' }),
    },
    deps,
  );
}
