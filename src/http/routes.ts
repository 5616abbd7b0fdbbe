import type OpenAPIBackend from 'openapi-backend';
import type { Document, Operation as ContractOperation } from 'openapi-backend';
import type { ValidateFunction } from 'ajv';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface Route {
  op: ContractOperation;
  method: string;
  /** null for a path without parameters. */
  pattern: RegExp | null;
  names: string[];
  specificity: number;
  schemes: string[][];
  /** The operation's request validators, compiled on its first request (openapi-backend keeps them). */
  validators: () => ValidateFunction[];
  /** `x-audit-response: digest`: the answer echoes stored exchanges, and its audit row keeps a digest of it. */
  auditDigest?: true;
}

export type Match = { route: Route; rawParams: Record<string, string> } | { miss: 'not_found' | 'method_not_allowed'; allow: string[] };

/**
 * A contract's operations as a surface routes to them: an exact map for paths without parameters, then the
 * templates in order of specificity (as openapi-backend orders them), built once when the surface is made. A miss
 * says whether the path exists with other methods (405, and which) or not at all (404).
 */
export function routeIndex(api: OpenAPIBackend, definition: Document, opts: { apiRoot: string; exactTrailingSlashes?: boolean }) {
  const globalSecurity = definition.security ?? [];
  const routes: Route[] = api.router.getOperations().map((op) => {
    const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const security = (op.security ?? globalSecurity) as Array<Record<string, string[]>>;
    return {
      op,
      method: op.method.toUpperCase(),
      pattern: names.length
        ? new RegExp(
            `^${op.path
              .split(/\{[^}]+\}/)
              .map(escapeRegExp)
              .join('([^/]+)')}$`,
          )
        : null,
      names,
      specificity: op.path.replace(/\{.*?\}/g, '').length,
      schemes: security.map((req) => Object.keys(req)),
      validators: () => api.validator.getRequestValidatorsForOperation(op.operationId!) ?? [],
      ...((op as { 'x-audit-response'?: string })['x-audit-response'] === 'digest' ? { auditDigest: true as const } : {}),
    };
  });
  const exact = new Map(routes.filter((r) => !r.pattern).map((r) => [`${r.method} ${r.op.path}`, r]));
  const templated = routes.filter((r) => r.pattern).sort((a, b) => b.specificity - a.specificity);

  const normalise = (p: string) => {
    const rel = p.slice(opts.apiRoot === '/' ? 0 : opts.apiRoot.length) || '/';
    return opts.exactTrailingSlashes || rel === '/' ? rel : rel.replace(/\/+$/, '');
  };

  function match(method: string, pathname: string): Match {
    const rel = normalise(pathname);
    const hit = exact.get(`${method} ${rel}`);
    if (hit) return { route: hit, rawParams: {} };
    const allow = new Set<string>();
    for (const r of routes) if (!r.pattern && r.op.path === rel) allow.add(r.method);
    // Templates in order of specificity; the first of them with this method wins (as openapi-backend orders them).
    for (const r of templated) {
      const m = r.pattern!.exec(rel);
      if (!m) continue;
      if (r.method === method) return { route: r, rawParams: Object.fromEntries(r.names.map((n, i) => [n, m[i + 1]])) };
      allow.add(r.method);
    }
    return allow.size ? { miss: 'method_not_allowed', allow: [...allow].sort() } : { miss: 'not_found', allow: [] };
  }

  return { routes, match };
}
