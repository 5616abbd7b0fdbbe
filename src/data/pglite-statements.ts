import type * as PgliteModule from '@electric-sql/pglite';

/** database.ts's Row, named here again: database.ts imports this file, and lint refuses type-only cycles too. */
type Row = Record<string, unknown>;

/** Past this many statements prepared on one PGlite, new texts run unnamed (a bound in case texts were ever unbounded). */
const MAX_PREPARED = 1000;

/**
 * Named statements on the embedded database. PGlite's `query` parses, describes and plans its text at every call
 * (an unnamed statement, in six calls into the WebAssembly module). PGlite has one connection that lives as long
 * as the instance, so each statement is parsed once here, under its name, with its parameters' types, and then
 * only bound and executed (one call, and a plan PostgreSQL may cache): 5 times faster for a small insert, and the
 * whole parse and plan of a large CTE statement saved, on a database whose every microsecond is the service's own
 * thread. A prepared statement survives a rollback and is planned again by PostgreSQL when a table it uses changes.
 */
export class PgliteStatements {
  private readonly prepared = new Map<string, number[]>();
  private readonly lib: typeof PgliteModule;

  /** The statements of one PGlite instance, shared by every handle on it (two services on one embedded database). */
  static of(pg: PgliteModule.PGlite): PgliteStatements {
    let s = instances.get(pg);
    if (!s) instances.set(pg, (s = new PgliteStatements(pg)));
    return s;
  }

  private constructor(private readonly pg: PgliteModule.PGlite) {
    // Loaded only where an embedded database runs, as knex.ts loads PGlite itself.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.lib = require('@electric-sql/pglite') as typeof PgliteModule;
  }

  /**
   * Runs the statement named `name` (its text `text`), preparing it on first use. The caller holds the connection
   * (knex's pool of one), so nothing else runs on it meanwhile; `syncToFs` outside a transaction, as PGlite's own
   * `query` does.
   */
  async query(name: string, text: string, params: readonly unknown[], syncToFs: boolean): Promise<Row[]> {
    if (!this.prepared.has(name) && this.prepared.size >= MAX_PREPARED) return (await this.pg.query<Row>(text, [...params])).rows;
    const { serialize } = this.lib.protocol;
    return this.pg._runExclusiveQuery(async () => {
      let types = this.prepared.get(name);
      if (!types) {
        const described = await this.pg.execProtocol(join(serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()), {
          syncToFs: false,
        });
        types = this.lib.parse.parseDescribeStatementResults(described.messages);
        this.prepared.set(name, types);
      }
      const values = params.map((v, i) => (v === null || v === undefined ? null : this.serialised(v, types[i])));
      const ran = await this.pg.execProtocol(
        join(serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()),
        {
          syncToFs,
        },
      );
      return this.lib.parse.parseResults(ran.messages, this.pg.parsers)[0]?.rows ?? [];
    });
  }

  /** A parameter as PGlite's `query` sends it: the type's serialiser, else its text. */
  private serialised(v: unknown, type: number | undefined): string {
    const serialise = type === undefined ? undefined : this.pg.serializers[type];
    return serialise ? serialise(v) : String(v);
  }
}

const instances = new WeakMap<PgliteModule.PGlite, PgliteStatements>();

function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
