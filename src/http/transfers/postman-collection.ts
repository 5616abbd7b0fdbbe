/**
 * The Postman collection of the Transfers contract, as a run that tests itself: openapi-to-postmanv2 converts the
 * served contract (one request per operation: URL, parameters, headers, example body and responses, all from the
 * contract), then each request is given its place in the run, the body and variables that chain it to the requests
 * before it, and its `pm.test` assertions: the run, by operationId, is data (contracts/postman/transfers-run.yaml,
 * read once as RUN). An operation the contract gains before the run names it goes to a last folder with a test of
 * its documented success status, so the collection never leaves one out (test/unit/http/postman-collection.unit.test.ts
 * fails until it has its step).
 *
 * The chain, through collection variables set by the test scripts: the quote's `quoteId` and `offerId` → the
 * booking → its `bookingRef` and `etag` → read, change, sandbox helpers, cancel, statement, events, request log.
 * The key is the collection variable `apiKey` (empty here), the address `baseUrl`, the webhook target `webhookUrl`
 * (empty here: the run then skips the requests that need a webhook endpoint).
 */

import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { CONTRACTS_DIR } from '../../shared/paths';

type Script = string[];

/** One request of the run: the operation, what it sends beyond the contract's defaults, and what it checks. */
export interface Step {
  operationId: string;
  /** Path variables (`{{var}}` welcome). */
  path?: Record<string, string>;
  /** Query parameters set and switched on (the others keep the converter's: optional ones off). */
  query?: Record<string, string>;
  /** Headers set and switched on. */
  headers?: Record<string, string>;
  /** The JSON body (strings may hold `{{var}}`). */
  body?: unknown;
  prerequest?: Script;
  test: Script;
}

export interface Folder {
  name: string;
  description: string;
  steps: Step[];
}

/** The run as contracts/postman/transfers-run.yaml holds it: scripts as text (see that file's header). */
interface RunFile {
  description: string;
  variables: Record<string, string>;
  prerequest: string;
  test: string;
  folders: Array<{ name: string; description: string; steps: Array<Omit<Step, 'prerequest' | 'test'> & { prerequest?: string; test: string }> }>;
}

const RUN_FILE = path.join(CONTRACTS_DIR, 'postman', 'transfers-run.yaml');
const lines = (script: string): Script => script.split('\n');

function loadRun(): { run: Folder[]; description: string; variables: Record<string, string>; prerequest: Script; test: Script } {
  // The file is ours, read once at start: its shape is checked by the unit test against the contract.
  const file = yaml.load(fs.readFileSync(RUN_FILE, 'utf8')) as RunFile;
  const run = file.folders.map((f) => ({
    ...f,
    steps: f.steps.map((step) => {
      if (typeof step.operationId !== 'string' || typeof step.test !== 'string') throw new Error(`${RUN_FILE}: a step needs an operationId and a test`);
      return { ...step, prerequest: step.prerequest === undefined ? undefined : lines(step.prerequest), test: lines(step.test) };
    }),
  }));
  return { run, description: file.description, variables: file.variables, prerequest: lines(file.prerequest), test: lines(file.test) };
}

const LOADED = loadRun();
/** The run, in order. */
export const RUN: Folder[] = LOADED.run;

// ---------------------------------------------------------------------------------------------------------------
// Assembly: the converter's output, rearranged by RUN.

interface Header {
  key: string;
  value: string;
  disabled?: boolean;
  description?: unknown;
}
interface KeyValue {
  key: string;
  value: string;
  disabled?: boolean;
}
interface Request {
  method: string;
  url: { path: string[]; query?: KeyValue[]; variable?: KeyValue[] };
  header?: Header[];
  body?: { mode: string; raw?: string; options?: unknown };
  auth?: unknown;
}
interface Item {
  id?: string;
  name: string;
  description?: unknown;
  item?: Item[];
  request?: Request;
  response?: unknown[];
  event?: Array<{ listen: 'prerequest' | 'test'; script: { type: 'text/javascript'; exec: string[] } }>;
}
interface Collection {
  info: { name: string; description?: { content: string; type: string } | string; schema: string };
  item: Item[];
  variable?: Array<{ key: string; value: string; type?: string; description?: string }>;
  auth?: unknown;
  event?: Item['event'];
}
interface Operation {
  operationId: string;
  security?: unknown[];
  responses?: Record<string, unknown>;
}
export interface ContractPaths {
  paths: Record<string, Record<string, unknown>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The contract's operations by "METHOD /path" (path templates as written). */
export function operationsByRoute(contract: ContractPaths): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const [p, ops] of Object.entries(contract.paths))
    for (const [m, op] of Object.entries(ops)) if (METHODS.includes(m)) out.set(`${m.toUpperCase()} ${p}`, op as Operation);
  return out;
}

/** A converted request's route, as the contract writes it (`:booking_ref` → `{booking_ref}`). */
export const routeOf = (r: Request): string => `${r.method} /${r.url.path.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`;

const events = (prerequest: Script | undefined, test: Script): NonNullable<Item['event']> => [
  ...(prerequest ? [{ listen: 'prerequest' as const, script: { type: 'text/javascript' as const, exec: prerequest } }] : []),
  { listen: 'test', script: { type: 'text/javascript', exec: test } },
];

function setAll(list: KeyValue[] | undefined, values: Record<string, string> | undefined, what: string, operationId: string): KeyValue[] {
  const out = list ?? [];
  for (const [key, value] of Object.entries(values ?? {})) {
    const found = out.find((p) => p.key.toLowerCase() === key.toLowerCase());
    if (!found) {
      if (what === 'header') out.push({ key, value });
      else throw new Error(`postman collection: ${operationId} has no ${what} ${key} in the contract`);
    } else Object.assign(found, { value, disabled: false });
  }
  return out;
}

function applyStep(item: Item, step: Step, operation: Operation): void {
  const r = item.request!;
  r.url.variable = setAll(r.url.variable, step.path, 'path variable', step.operationId);
  r.url.query = setAll(r.url.query, step.query, 'query parameter', step.operationId);
  r.header = setAll(r.header, step.headers, 'header', step.operationId);
  if (step.body !== undefined) r.body = { mode: 'raw', raw: JSON.stringify(step.body, null, 2), options: { raw: { language: 'json' } } };
  if (operation.security?.length === 0) r.auth = { type: 'noauth' };
  item.event = events(step.prerequest, step.test);
}

/** An operation RUN does not name yet: sent as the contract's example, expecting its documented success. */
function unplannedStep(operation: Operation): Step {
  const codes = Object.keys(operation.responses ?? {}).filter((c) => /^2\d\d$/.test(c));
  return {
    operationId: operation.operationId,
    test: [`pm.test('a success the contract documents (${codes.join(', ')})', () => pm.expect(pm.response.code).to.be.oneOf([${codes.join(', ')}]));`],
  };
}

/** The converted collection, rearranged into the run. */
function arrangeCollection(converted: Collection, contract: ContractPaths): Collection {
  const byRoute = operationsByRoute(contract);
  const items = new Map<string, Item>();
  const walk = (list: Item[]) =>
    list.forEach((i) => (i.item ? walk(i.item) : i.request && items.set(byRoute.get(routeOf(i.request))?.operationId ?? routeOf(i.request), i)));
  walk(converted.item);
  const operations = new Map([...byRoute.values()].map((o) => [o.operationId, o]));

  const placed = new Set<string>();
  const folder = (name: string, description: string, steps: Step[]): Item => ({
    name,
    description,
    item: steps.flatMap((s) => {
      const item = items.get(s.operationId);
      const operation = operations.get(s.operationId);
      if (!item || !operation) return []; // RUN names an operation the contract no longer has (the unit test says so)
      placed.add(s.operationId);
      applyStep(item, s, operation);
      return [item];
    }),
  });
  const folders = RUN.map((f) => folder(f.name, f.description, f.steps));
  const rest = [...operations.values()].filter((o) => !placed.has(o.operationId) && items.has(o.operationId));
  if (rest.length) folders.push(folder('Not in the run yet', 'Operations of the contract the run does not chain yet.', rest.map(unplannedStep)));

  const description = typeof converted.info.description === 'string' ? converted.info.description : (converted.info.description?.content ?? '');
  return {
    ...converted,
    info: { ...converted.info, description: { content: LOADED.description + description, type: 'text/markdown' } },
    item: folders,
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] },
    variable: [
      ...(converted.variable ?? []).filter((v) => v.key === 'baseUrl'),
      { key: 'apiKey', value: '', type: 'string', description: 'Your sandbox key (svc_sk_test_…). The collection sends it as a bearer token.' },
      // Empty: a default target would be a host that may not resolve (offline, say) or that answers nothing useful,
      // and every delivery to it a failure graded in the partner's integration report. Without it the run skips the
      // webhook requests and says so (contracts/postman/transfers-run.yaml).
      {
        key: 'webhookUrl',
        value: '',
        type: 'string',
        description:
          'A URL of yours that accepts a POST (http or https in sandbox): the run registers it, pings it and deletes it. Empty: the run skips the webhook requests.',
      },
      ...Object.entries(LOADED.variables).map(([key, description]) => ({ key, value: '', type: 'string', description })),
    ],
    event: events(LOADED.prerequest, LOADED.test),
  };
}

/** Every Idempotency-Key header on, with a new UUID per send (Postman's `{{$guid}}`): the safe default. */
function withFreshIdempotencyKeys(items: Item[]): void {
  for (const it of items) {
    if (it.item) withFreshIdempotencyKeys(it.item);
    for (const h of it.request?.header ?? []) if (h.key.toLowerCase() === 'idempotency-key') Object.assign(h, { value: '{{$guid}}', disabled: false });
  }
}

/**
 * The collection of the served contract (`servers[0].url` becomes `baseUrl`): converted by openapi-to-postmanv2 with
 * the contract's examples (optional parameters there but off), then arranged into the run.
 */
export function postmanCollection(contract: object): Promise<object> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const converter = require('openapi-to-postmanv2') as {
    convert(
      input: { type: 'json'; data: object },
      options: object,
      cb: (err: Error | null, r: { result: boolean; reason?: string; output: Array<{ data: Collection }> }) => void,
    ): void;
  };
  return new Promise((resolve, reject) =>
    converter.convert(
      { type: 'json', data: contract },
      { folderStrategy: 'Tags', requestParametersResolution: 'Example', exampleParametersResolution: 'Example', enableOptionalParameters: false },
      (err, r) => {
        if (err) reject(err);
        else if (!r.result) reject(new Error(`postman conversion: ${r.reason}`));
        else {
          try {
            const collection = arrangeCollection(r.output[0].data, contract as ContractPaths);
            withFreshIdempotencyKeys(collection.item);
            resolve(collection);
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        }
      },
    ),
  );
}
