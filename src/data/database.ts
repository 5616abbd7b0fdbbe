import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { serviceUnavailable } from '../shared/errors';
import { isUnavailable } from './errors';
import { PgliteStatements } from './pglite-statements';

export type Row = Record<string, unknown>;

/**
 * One SQL statement of the persistence layer. Its name is derived from its text, so on a direct PostgreSQL
 * connection and on PGlite it is prepared once per connection and executed by name afterwards (no parse, and a
 * cached plan); PostgreSQL behind a transaction pooler runs the text (an unnamed statement).
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

const byText = new Map<string, Statement>();

/** A named statement for `text` (the same object for the same text, so callers may build texts at run time). */
export function sql(text: string): Statement {
  let s = byText.get(text);
  if (!s) {
    s = Object.freeze({ name: `q_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text });
    byText.set(text, s);
  }
  return s;
}

/**
 * Runs statements. The root `Database` runs each in its own implicit transaction (one statement = one atomic
 * unit); a `Tx` runs them in its transaction. `knex` is the query builder bound to the same executor, for the
 * few queries whose shape depends on the input (operator filters).
 */
export interface Sql {
  query<R extends object = Row>(stmt: Statement | string, params?: readonly unknown[]): Promise<R[]>;
  readonly knex: Knex;
  readonly inTransaction: boolean;
}

export interface Tx extends Sql {
  readonly inTransaction: true;
  /** Runs `fn` in a savepoint: an error it throws undoes its writes only. */
  savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

/** A transaction the caller ends explicitly (the request pipeline's lazily opened unit of work). */
export interface OpenTx extends Tx {
  commit(): Promise<void>;
  rollback(): Promise<void>;
  readonly done: boolean;
}

export type QueryObserver = (text: string, params: readonly unknown[]) => void;

type RawConnection = {
  query(...args: unknown[]): Promise<{ rows: Row[] }>;
};

/** The part of knex's client the executors use: knex declares its client `any`, so its shape is named once here. */
interface KnexClient {
  acquireConnection(): Promise<RawConnection>;
  releaseConnection(conn: RawConnection): unknown;
  pool?: unknown;
  /** knex-pglite's single connection. */
  pglite?: Parameters<typeof PgliteStatements.of>[0];
}
const clientOf = (k: Knex): KnexClient => k.client as KnexClient;

/** Translates driver failures once, here: an unreachable database is a 503, everything else is rethrown as is. */
function translate(e: unknown, text: string): never {
  if (isUnavailable(e)) {
    const err = serviceUnavailable();
    (err as { cause?: unknown }).cause = e;
    throw err;
  }
  if (e && typeof e === 'object') Object.defineProperty(e, 'statement', { value: text.slice(0, 500), enumerable: false });
  throw e;
}

abstract class Executor implements Sql {
  abstract readonly knex: Knex;
  abstract readonly inTransaction: boolean;
  protected abstract acquire(): Promise<RawConnection>;
  protected abstract release(conn: RawConnection): void;

  constructor(
    /** PGlite's statements, prepared by name on its one connection; undefined on PostgreSQL. */
    protected readonly embedded: PgliteStatements | undefined,
    protected readonly observe: () => QueryObserver | undefined,
    /** PostgreSQL: prepared by name once per connection (a direct connection), or parsed each time (behind a pooler). */
    protected readonly named: boolean,
  ) {}

  async query<R extends object = Row>(stmt: Statement | string, params: readonly unknown[] = []): Promise<R[]> {
    const s = typeof stmt === 'string' ? sql(stmt) : stmt;
    this.observe()?.(s.text, params);
    let conn: RawConnection;
    try {
      conn = await this.acquire();
    } catch (e) {
      translate(e, s.text);
    }
    try {
      if (this.embedded) return (await this.embedded.query(s.name, s.text, params, !this.inTransaction)) as R[];
      const res = this.named ? await conn.query({ name: s.name, text: s.text, values: params }) : await conn.query(s.text, params);
      return res.rows as R[];
    } catch (e) {
      translate(e, s.text);
    } finally {
      this.release(conn);
    }
  }
}

class TxExecutor extends Executor implements OpenTx {
  readonly inTransaction = true as const;
  private ended = false;

  constructor(
    readonly knex: Knex.Transaction,
    embedded: PgliteStatements | undefined,
    observe: () => QueryObserver | undefined,
    named: boolean,
  ) {
    super(embedded, observe, named);
  }

  protected acquire() {
    return clientOf(this.knex).acquireConnection();
  }

  protected release() {}

  get done() {
    return this.ended || this.knex.isCompleted();
  }

  async savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.knex.transaction((sp) => fn(new TxExecutor(sp, this.embedded, this.observe, this.named)));
    } catch (e) {
      if (isUnavailable(e)) translate(e, 'savepoint');
      throw e;
    }
  }

  async commit() {
    this.ended = true;
    try {
      await this.knex.commit();
    } catch (e) {
      translate(e, 'commit');
    }
  }

  async rollback() {
    if (this.done) return;
    this.ended = true;
    // A rollback on a dead connection has nothing left to undo.
    await this.knex.rollback().catch(() => undefined);
  }
}

/**
 * The persistence layer's handle on the database: a knex pool (PostgreSQL) or the single PGlite connection.
 * Statements go straight to the driver (prepared by name on PostgreSQL); the builder and migrations use knex.
 */
export class Database extends Executor {
  readonly inTransaction = false;
  private watcher?: QueryObserver;
  private listening = false;

  /**
   * `namedStatements`: prepare each statement by name once per connection (the default on PostgreSQL). Off behind a
   * transaction pooler, where the next transaction may run on a server session that never saw the prepare.
   */
  constructor(
    readonly knex: Knex,
    opts: { namedStatements?: boolean } = {},
  ) {
    const pglite = clientOf(knex).pglite;
    super(pglite && PgliteStatements.of(pglite), () => this.watcher, !pglite && opts.namedStatements !== false);
  }

  /** Tests watch every statement the service issues, builder queries included (for the EXPLAIN checks). */
  set observer(fn: QueryObserver | undefined) {
    this.watcher = fn;
    if (fn && !this.listening) {
      this.listening = true;
      this.knex.on('query', (q: { sql: string; bindings?: unknown[] }) => this.watcher?.(q.sql, q.bindings ?? []));
    }
  }

  get kind(): 'pglite' | 'postgres' {
    return this.embedded ? 'pglite' : 'postgres';
  }

  protected acquire() {
    return clientOf(this.knex).acquireConnection();
  }

  protected release(conn: RawConnection) {
    clientOf(this.knex).releaseConnection(conn);
  }

  /** Runs `fn` in a transaction that commits when it resolves and rolls back when it throws. */
  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.knex.transaction((trx) => fn(new TxExecutor(trx, this.embedded, this.observe, this.named)));
    } catch (e) {
      if (isUnavailable(e)) translate(e, 'transaction');
      throw e;
    }
  }

  /** Opens a transaction the caller commits or rolls back. */
  async begin(): Promise<OpenTx> {
    try {
      return new TxExecutor(await this.knex.transaction(), this.embedded, this.observe, this.named);
    } catch (e) {
      translate(e, 'begin');
    }
  }

  /** The connection pool's figures (metrics): connections in use, idle, and requests waiting for one. */
  poolFigures(): { used: number; free: number; pending: number } {
    const pool = clientOf(this.knex).pool;
    if (!isPool(pool)) return { used: 0, free: 0, pending: 0 };
    return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
  }

  destroy(): Promise<void> {
    return this.knex.destroy();
  }
}

interface Pool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** knex's pool (tarn) when there is one: PGlite's single connection has none. */
const isPool = (p: unknown): p is Pool =>
  typeof p === 'object' && p !== null && 'numUsed' in p && typeof p.numUsed === 'function' && 'numFree' in p && 'numPendingAcquires' in p;
