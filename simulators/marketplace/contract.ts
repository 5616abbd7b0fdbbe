import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { CONTRACTS_DIR } from '../../src/shared/paths';
import type { components, operations } from '../../src/generated/marketplace-outbound';

/** The pinned model of the marketplace (contracts/marketplace-outbound.yaml): types and request validation. */
type Ops = operations;
type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type RequestOf<O extends keyof Ops> = Ops[O] extends { requestBody: infer R } ? JsonBody<NonNullable<R>> : never;

export type MarketplaceOperation = keyof Ops;
export type Order = components['schemas']['Order'];
export type OrderState = Order['state'];
export type Brand = components['schemas']['Brand'];
export type ErrorBody = components['schemas']['Error'];

const CONTRACT_ID = 'marketplace-outbound';
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(yaml.load(fs.readFileSync(path.join(CONTRACTS_DIR, 'marketplace-outbound.yaml'), 'utf8')) as object, CONTRACT_ID);

const pointer = (...parts: string[]) => `${CONTRACT_ID}#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
const compiled = new Map<string, ValidateFunction>();

function validator(ref: string): ValidateFunction {
  let v = compiled.get(ref);
  if (!v) {
    v = ajv.compile({ $ref: ref });
    compiled.set(ref, v);
  }
  return v;
}

export type Validation = { ok: true } | { ok: false; message: string };

function check(ref: string, value: unknown): Validation {
  const v = validator(ref);
  return v(value) ? { ok: true } : { ok: false, message: describe(v.errors) };
}

/** Checks a request body against the operation at `path` (e.g. "/booking/confirm/") in the contract. */
export const validateRequestBody = (contractPath: string, body: unknown): Validation =>
  check(pointer('paths', contractPath, 'post', 'requestBody', 'content', 'application/json', 'schema'), body);

/** Checks an order record against the contract's Order: the simulator never serves one that breaks it. */
export const validateOrder = (order: unknown): Validation => check(pointer('components', 'schemas', 'Order'), order);

function describe(errors: ErrorObject[] | null | undefined): string {
  const parts = (errors ?? []).map((e) => {
    const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'body';
    if (e.keyword === 'required') return `${where === 'body' ? '' : `${where}.`}${(e.params as { missingProperty: string }).missingProperty} is required`;
    if (e.keyword === 'additionalProperties')
      return `${where === 'body' ? '' : `${where}.`}${(e.params as { additionalProperty: string }).additionalProperty} is not allowed`;
    return `${where} ${e.message ?? 'is invalid'}`;
  });
  return `invalid request: ${[...new Set(parts)].join('; ') || 'body does not match the contract'}`;
}
