import { agentPolicy } from '../../domain/agents/agent-bookings';
import { agentAccess } from '../../domain/agents/policy';
import type { ToolAnswer, ToolSession } from './session';
import { schemaOf, type JsonSchema } from './tool-schemas';
import { say } from './words';

/** What a tool does, for the host to decide whether to ask its human first (MCP's tool annotations). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One MCP tool: what tools/list says of it, and what a call runs. */
export interface Tool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** The success's schema; tools/list serves it with the error's as alternatives (see outputSchemaOf). */
  output: JsonSchema;
  annotations: ToolAnnotations;
  /** Whether the tool changes a booking or spends money (refused when the operator turned agents off). */
  acts: boolean;
  run(args: Record<string, unknown>, s: ToolSession): Promise<ToolAnswer>;
}

/** A schema of the Transfers contract, or of the MCP contract's own. */
export const T = (name: string) => schemaOf('transfers-v1.yaml', name);
export const M = (name: string) => schemaOf('mcp.yaml', name);

export const hints = (title: string, h: Partial<ToolAnnotations>): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
  ...h,
});

/** A tool's outputSchema: its result, or the error every tool may answer (both objects). */
export const outputSchemaOf = (t: Tool): JsonSchema => ({ type: 'object', anyOf: [t.output, M('ToolError')] });

export const ok = (structured: Record<string, unknown>, text: string): ToolAnswer => ({ structured, text });
export const refusal = (r: { code: string; message: string; details: Record<string, unknown> }): ToolAnswer => ({ error: r });
/** Whose personal data an exchange about a booking holds. */
export const bookingSubject = (ref: unknown) => `booking:${say(ref)}`;

/** Whether the operator lets this partner's agents act at all (read-only tools stay open). */
export async function accessRefusal(t: Tool, s: ToolSession): Promise<ToolAnswer | undefined> {
  if (!t.acts) return undefined;
  const closed = agentAccess(await agentPolicy(s.ctx.sql, s.partner.partnerId));
  return closed ? refusal(closed) : undefined;
}
