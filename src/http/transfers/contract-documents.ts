import yaml from 'js-yaml';
import { loadContract } from '../surface';
import type { Document } from '../types';
import { postmanCollection } from './postman-collection';

/**
 * The Transfers contract as this deployment serves it: `servers` names this deployment (PUBLIC_BASE_URL), and
 * examples written as references to `components.examples` are inlined so that every renderer and converter shows
 * them. Built once, at start; the Postman collection (postman-collection.ts) is generated on first request.
 */
export interface ContractDocuments {
  json: Document;
  yaml: Document;
  postman(): Promise<Document>;
}

/** How long clients may cache the documents: they change only with a deployment. */
const CACHE_SECONDS = 300;

const built = new Map<string, ContractDocuments>();

/** The documents for a deployment address (built on first use, then kept). */
export function contractDocuments(publicBaseUrl: string): ContractDocuments {
  let docs = built.get(publicBaseUrl);
  if (!docs) built.set(publicBaseUrl, (docs = buildDocuments(publicBaseUrl)));
  return docs;
}

function buildDocuments(publicBaseUrl: string): ContractDocuments {
  const contract = loadContract('transfers-v1.yaml');
  const examples: Record<string, { value: unknown }> = {};
  for (const [name, e] of Object.entries(contract.components?.examples ?? {})) if ('value' in e) examples[name] = { value: e.value };
  const served: object = {
    ...contract,
    servers: [{ url: `${publicBaseUrl}/transfers/v1`, description: 'This deployment: sandbox or production, as your key chooses' }],
    paths: inlineExampleRefs(contract.paths, examples),
    components: inlineExampleRefs(contract.components, examples),
  };
  let postman: Promise<Document> | undefined;
  return {
    json: { contentType: 'application/json; charset=utf-8', bytes: Buffer.from(JSON.stringify(served)), cacheSeconds: CACHE_SECONDS },
    yaml: {
      contentType: 'application/yaml; charset=utf-8',
      bytes: Buffer.from(yaml.dump(served, { lineWidth: 120, noRefs: true })),
      cacheSeconds: CACHE_SECONDS,
    },
    postman: () =>
      (postman ??= postmanCollection(served).then((c) => ({
        contentType: 'application/json; charset=utf-8',
        bytes: Buffer.from(JSON.stringify(c)),
        cacheSeconds: CACHE_SECONDS,
      }))),
  };
}

/** `example: {$ref: '#/components/examples/X/value'}` → the example's value (a shorthand our contracts use). */
function inlineExampleRefs(node: unknown, examples: Record<string, { value: unknown }>): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineExampleRefs(n, examples));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(node)) {
    const v: unknown = value;
    const ref: unknown = k === 'example' && v && typeof v === 'object' && '$ref' in v ? v.$ref : undefined;
    const m = typeof ref === 'string' ? /^#\/components\/examples\/([^/]+)\/value$/.exec(ref) : null;
    out[k] = m && examples[m[1]] ? examples[m[1]].value : inlineExampleRefs(v, examples);
  }
  return out;
}
