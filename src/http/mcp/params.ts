import { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema, PingRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** The requests this server answers, each with the SDK's own schema of its params. */
const REQUESTS = new Map<string, { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } } }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; error?: { code?: unknown; message?: unknown } };

/** What is wrong with a request's params, in one sentence; undefined when the SDK's schema takes them. */
function paramsProblem(request: Message): string | undefined {
  const schema = typeof request.method === 'string' ? REQUESTS.get(request.method) : undefined;
  const parsed = schema?.safeParse(request);
  if (!parsed || parsed.success) return undefined;
  const where = (parsed.error?.issues ?? []).slice(0, 5).map((i) => `${i.path.map(String).join('.') || 'the request'}: ${i.message}`);
  return `Invalid params for ${request.method as string}: ${where.join('; ')}.`;
}

/**
 * The SDK's answer with each of its internal errors (-32603) for a request whose params its own schema refused made
 * what it is: -32602 Invalid params, with a sentence naming the field. The SDK parses a request's params inside the
 * handler it registers, and answers a failed parse as an internal error whose message is zod's issues as JSON
 * (modelcontextprotocol/typescript-sdk#2284): to a client that reads as a bug on our side. Any other answer is
 * returned as it is (the very same value).
 */
export function withParamsErrors(sent: unknown, answer: unknown): unknown {
  const requests = new Map<unknown, Message>();
  for (const m of Array.isArray(sent) ? sent : [sent]) if (m && typeof m === 'object' && 'id' in m) requests.set((m as Message).id, m as Message);
  const fix = (a: unknown): unknown => {
    const r = a as Message;
    if (!r || typeof r !== 'object' || r.error?.code !== -32603 || !requests.has(r.id)) return a;
    const problem = paramsProblem(requests.get(r.id)!);
    return problem ? { ...r, error: { code: -32602, message: problem } } : a;
  };
  if (!Array.isArray(answer)) return fix(answer);
  const fixed = answer.map(fix);
  return fixed.some((a, i) => a !== answer[i]) ? fixed : answer;
}
