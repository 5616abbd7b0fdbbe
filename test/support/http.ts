export interface Reply<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface CallOptions {
  key?: string;
  /** Send the key as X-Api-Key instead of Authorization: Bearer. */
  keyHeader?: 'bearer' | 'x-api-key';
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export function client(baseUrl: string) {
  return async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) {
      if (opts.keyHeader === 'x-api-key') headers['X-Api-Key'] = opts.key;
      else headers['Authorization'] = `Bearer ${opts.key}`;
    }
    let body: string | Buffer | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed as T };
  };
}

export type Call = ReturnType<typeof client>;
