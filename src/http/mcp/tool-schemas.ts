import { loadContract } from '../surface';

/** A JSON Schema as MCP's tools/list serves it (draft 2020-12 compatible; OpenAPI 3.0's `nullable` made a type). */
export type JsonSchema = Record<string, unknown>;

type Contract = 'transfers-v1.yaml' | 'mcp.yaml';
const documents = new Map<Contract, Record<string, unknown>>();
const documentOf = (c: Contract) => {
  let d = documents.get(c);
  if (!d) documents.set(c, (d = loadContract(c) as unknown as Record<string, unknown>));
  return d;
};

/** Keywords of OpenAPI's schema objects that JSON Schema does not have, or that a tool's schema does not need. */
const DROPPED = new Set(['example', 'examples', 'xml', 'externalDocs', 'discriminator', 'nullable', 'deprecated']);

function at(contract: Contract, pointer: string): unknown {
  let node: unknown = documentOf(contract);
  for (const part of pointer.replace(/^#?\//, '').split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`no schema at ${contract}${pointer}`);
  }
  return node;
}

/**
 * A contract's schema as a self-contained JSON Schema: `$ref`s within the contract and `x-ref`s to the Transfers
 * contract (mcp.yaml's way of naming a Transfers schema) inlined, `nullable` turned into a type that admits null.
 */
function plain(node: unknown, contract: Contract, depth = 0): unknown {
  if (depth > 40) throw new Error('schema nested too deeply (a cycle?)');
  if (Array.isArray(node)) return node.map((n) => plain(n, contract, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  if (typeof o.$ref === 'string') return withExtra(plain(at(contract, o.$ref), contract, depth + 1), o, contract, depth);
  if (typeof o['x-ref'] === 'string') {
    const [file, pointer] = o['x-ref'].split('#');
    return withExtra(plain(at(file as Contract, pointer), file as Contract, depth + 1), o, contract, depth);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (DROPPED.has(k) || k.startsWith('x-')) continue;
    out[k] =
      k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, plain(s, contract, depth + 1)])) : plain(v, contract, depth + 1);
  }
  return o.nullable === true ? nullable(out) : out;
}

/** A reference's siblings (a description, `nullable`) kept over what it points at. */
function withExtra(target: unknown, ref: Record<string, unknown>, contract: Contract, depth: number): unknown {
  const rest = Object.entries(ref).filter(([k]) => k !== '$ref' && k !== 'x-ref');
  if (!rest.length) return target;
  const merged = { ...(target as object), ...(plain(Object.fromEntries(rest), contract, depth + 1) as object) };
  return ref.nullable === true ? nullable(merged) : merged;
}

function nullable(s: Record<string, unknown>): Record<string, unknown> {
  if (typeof s.type === 'string') return { ...s, type: [s.type, 'null'], ...(Array.isArray(s.enum) ? { enum: [...(s.enum as unknown[]), null] } : {}) };
  return { anyOf: [s, { type: 'null' }] };
}

/** The named schema of a contract (`components.schemas.<name>`), self-contained. */
export function schemaOf(contract: Contract, name: string): JsonSchema {
  return plain(at(contract, `#/components/schemas/${name}`), contract) as JsonSchema;
}

/** An object schema with more properties, some of them required (a tool's output that adds to a Transfers schema). */
export function extended(base: JsonSchema, more: JsonSchema, required: string[] = []): JsonSchema {
  return {
    ...base,
    properties: { ...(base.properties as object), ...(more.properties as object) },
    required: [...((base.required as string[] | undefined) ?? []), ...required],
  };
}

/** An object schema with some of its required properties made optional. */
export function optional(base: JsonSchema, names: string[]): JsonSchema {
  return { ...base, required: ((base.required as string[] | undefined) ?? []).filter((r) => !names.includes(r)) };
}
