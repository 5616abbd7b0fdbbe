import { execFile } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { backend, type TestApp } from './test-app';

const run = promisify(execFile);

/**
 * The whole of a test app's database as text, to search for what it must (or must no longer) hold.
 *
 * - On PostgreSQL: `pg_dump --data-only` of the file's schema (or, through the pooler, of its own database, reached
 *   directly: pg_dump needs a session a transaction pooler does not give). Each table's rows come as a
 *   `COPY <table> (<columns>) FROM stdin;` block, one tab-separated row a line; a partitioned table's rows under each
 *   partition (the audit log's months).
 * - On PGlite (embedded, in memory): every table of the current schema, partitions included (a partitioned parent
 *   holds no rows of its own, as in pg_dump), read back with `row_to_json`: a `-- TABLE <name>` line, then one JSON
 *   object a row, keyed by the real column names.
 *
 * Sequences, the migrations' bookkeeping and everything else in the schema are in it too: nothing is left out.
 */
export async function dumpDatabase(app: Pick<TestApp, 'db' | 'schema' | 'dbEnv'>): Promise<string> {
  return backend === 'postgres' ? pgDump(app) : readEveryTable(app);
}

/** The pg_dump on the PATH, else the newest of Debian's /usr/lib/postgresql/<version>/bin. */
function pgDumpProgram(): string {
  const onPath = (process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, 'pg_dump'));
  const debian = fs.existsSync('/usr/lib/postgresql')
    ? fs
        .readdirSync('/usr/lib/postgresql')
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => `/usr/lib/postgresql/${v}/bin/pg_dump`)
    : [];
  const found = [...onPath, ...debian].find((p) => fs.existsSync(p));
  if (!found) throw new Error('dumpDatabase: no pg_dump on the PATH nor in /usr/lib/postgresql/*/bin');
  return found;
}

async function pgDump(app: Pick<TestApp, 'schema' | 'dbEnv'>): Promise<string> {
  // Through the pooler the app's DATABASE_URL is the pooler's; DATABASE_DIRECT_URL is its database on the server.
  const url = app.dbEnv.DATABASE_DIRECT_URL ?? app.dbEnv.DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) throw new Error('dumpDatabase: no DATABASE_URL for pg_dump');
  const schema = app.schema ?? app.dbEnv.DATABASE_SCHEMA;
  const args = ['--data-only', '--no-password', `--dbname=${url}`];
  if (schema) args.push(`--schema="${schema.replace(/"/g, '""')}"`);
  const { stdout } = await run(pgDumpProgram(), args, { maxBuffer: 1024 * 1024 * 1024, env: { ...process.env, PGCONNECT_TIMEOUT: '10' } });
  return stdout;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function readEveryTable(app: Pick<TestApp, 'db'>): Promise<string> {
  const tables = await app.db.raw(
    `select c.relname as name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r'
      order by c.relname`,
  );
  const out: string[] = [];
  for (const { name } of tables.rows as Array<{ name: string }>) {
    out.push(`-- TABLE ${name}`);
    // One text column (aliased `j`, which no identifier mapping changes): the row as PostgreSQL writes it in JSON.
    const rows = await app.db.raw(`select row_to_json(t)::text as j from ${quoteIdent(name)} t`);
    for (const r of rows.rows as Array<{ j: string }>) out.push(r.j);
  }
  return `${out.join('\n')}\n`;
}

/**
 * Where one value was found: a table, its column, in how many rows, and (for JSON columns) where inside. `sealed`:
 * the value is there only sealed (`pd1:<subject>:…`), but its subject's key is in the dump too
 * (personal_data_keys), so whoever holds the dump can read it; `subjects` names those keys.
 */
export interface Found {
  table: string;
  column: string;
  rows: number;
  /** JSON paths inside the column's value (e.g. `data.booking.passenger.last_name`), when it holds JSON; at most 8. */
  paths: string[];
  sealed: boolean;
  subjects: string[];
}

/** A COPY block's table, unqualified (`t_abc.audit_log_2026_11` → `audit_log_2026_11`). */
const unqualified = (name: string) => name.replace(/^(?:"[^"]*"|[^."]+)\./, '').replace(/^"|"$/g, '');

/** COPY's text format: `\N` is null; backslash escapes. */
function unescapeCopy(field: string): string | null {
  if (field === '\\N') return null;
  return field.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v' })[c] ?? c);
}

/** The paths inside a JSON value whose string (or number) holds `needle` (lower case); keys count too. */
function jsonPaths(value: unknown, needle: string, at: string, out: Set<string>): void {
  if (out.size >= 8) return;
  if (value === null || value === undefined) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    if (String(value).toLowerCase().includes(needle)) out.add(at || '(value)');
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => jsonPaths(v, needle, `${at}[${i}]`, out));
    return;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const p = at ? `${at}.${k}` : k;
    if (k.toLowerCase().includes(needle)) out.add(`${p} (key)`);
    jsonPaths(v, needle, p, out);
  }
}

/** A column's value, parsed when it is JSON (an object or array), else as it is. */
function parsedColumn(text: string | null): unknown {
  if (text === null) return null;
  const t = text.trim();
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    try {
      return JSON.parse(t);
    } catch {
      return text; // a PostgreSQL array literal ({a,b}), not JSON
    }
  }
  return text;
}

/** Every row of the dump, as its table and its columns (name → value as text, or parsed JSON). */
function* rowsOf(dump: string): Generator<{ table: string; columns: Array<[string, unknown]> }> {
  let table: string | null = null;
  let copyColumns: string[] | null = null;
  for (const line of dump.split('\n')) {
    const copy = /^COPY (.+?) \((.*)\) FROM stdin;$/.exec(line);
    if (copy) {
      table = unqualified(copy[1]);
      copyColumns = copy[2].split(', ').map((c) => c.replace(/^"|"$/g, ''));
      continue;
    }
    if (copyColumns && line === '\\.') {
      table = null;
      copyColumns = null;
      continue;
    }
    if (copyColumns && table) {
      const fields = line.split('\t');
      yield { table, columns: copyColumns.map((c, i) => [c, parsedColumn(unescapeCopy(fields[i] ?? '\\N'))]) };
      continue;
    }
    const header = /^-- TABLE (.+)$/.exec(line);
    if (header) {
      table = header[1];
      continue;
    }
    if (table && line.startsWith('{')) {
      const row = JSON.parse(line) as Record<string, unknown>;
      yield { table, columns: Object.entries(row).map(([c, v]) => [c, typeof v === 'string' ? parsedColumn(v) : v]) };
    }
  }
}

/**
 * A sealed value as the service keeps personal data in the audit log (src/domain/kernel/seal.ts):
 * `pd1:<subject>:<base64url(iv ‖ tag ‖ ciphertext)>`, the value's JSON (a text, a number, or a whole person) under
 * AES-256-GCM with the subject's data key
 * and the subject as associated data. Read here independently of the service's code, as anyone holding the dump
 * could: with the keys the dump itself holds.
 */
const SEALED = /pd1:[^"\s\\]+/g;

function openSealed(token: string, keys: ReadonlyMap<string, Buffer>): { subject: string; value: string } | undefined {
  const end = token.lastIndexOf(':');
  if (end <= 4) return undefined;
  const subject = token.slice(4, end);
  const key = keys.get(subject);
  if (!key) return undefined;
  try {
    const raw = Buffer.from(token.slice(end + 1), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(subject));
    decipher.setAuthTag(raw.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    // A text or a number; or a whole person (an object), searched as its JSON.
    const value: unknown = JSON.parse(plain);
    return { subject, value: typeof value === 'object' ? plain : String(value) };
  } catch {
    return undefined;
  }
}

/** The data keys in the dump (personal_data_keys: subject → key, `\x…` hex; an erased subject's key is null). */
function dataKeysIn(dump: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const { table, columns } of rowsOf(dump)) {
    if (table !== 'personal_data_keys') continue;
    const row = Object.fromEntries(columns);
    if (typeof row.subject === 'string' && typeof row.key === 'string' && row.key.startsWith('\\x'))
      keys.set(row.subject, Buffer.from(row.key.slice(2), 'hex'));
  }
  return keys;
}

/**
 * For each value, where the dump holds it (case-insensitively): every table and column with the number of rows, and
 * for JSON columns the paths inside. Sealed values are opened with the keys the dump holds, and a value found in
 * one is reported as `sealed` (readable by whoever holds the dump; a value sealed with a destroyed key is not found).
 * A value found nowhere maps to []. Text outside any table's rows (a sequence's setval, a comment) that holds a value
 * is reported as table `(dump)`, column `(text)`.
 */
export function whereFound(dump: string, values: readonly string[]): Record<string, Found[]> {
  const needles = values.map((v) => v.toLowerCase());
  const keys = dataKeysIn(dump);
  const found = new Map<string, Map<string, Found>>(values.map((v) => [v, new Map()]));
  const add = (value: string, table: string, column: string, paths: Iterable<string>, subject?: string) => {
    const key = `${table}.${column}${subject === undefined ? '' : ' (sealed)'}`;
    const at = found.get(value)!;
    const f = at.get(key) ?? { table, column, rows: 0, paths: [], sealed: subject !== undefined, subjects: [] };
    f.rows += 1;
    for (const p of paths) if (!f.paths.includes(p) && f.paths.length < 8) f.paths.push(p);
    if (subject !== undefined && !f.subjects.includes(subject)) f.subjects.push(subject);
    at.set(key, f);
  };
  for (const { table, columns } of rowsOf(dump)) {
    for (const [column, value] of columns) {
      if (value === null || value === undefined) continue;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      const lower = text.toLowerCase();
      needles.forEach((needle, i) => {
        if (!lower.includes(needle)) return;
        const paths = new Set<string>();
        if (typeof value === 'object') jsonPaths(value, needle, '', paths);
        add(values[i], table, column, paths);
      });
      // Counted once per row and column for each value, however many of its sealed copies hold it.
      const seen = new Set<number>();
      for (const [token] of text.matchAll(SEALED)) {
        const opened = openSealed(token, keys);
        if (!opened) continue;
        const plain = opened.value.toLowerCase();
        needles.forEach((needle, i) => {
          if (!plain.includes(needle) || seen.has(i)) return;
          seen.add(i);
          const paths = new Set<string>();
          if (typeof value === 'object') jsonPaths(value, token.toLowerCase(), '', paths);
          add(values[i], table, column, paths, opened.subject);
        });
      }
    }
  }
  // Anything found by a plain search but in no row (outside COPY blocks and JSON rows) is reported too.
  const lowerDump = dump.toLowerCase();
  needles.forEach((needle, i) => {
    if (found.get(values[i])!.size === 0 && lowerDump.includes(needle)) add(values[i], '(dump)', '(text)', []);
  });
  const order = (f: Found) => `${f.table}.${f.column}${f.sealed ? ' ~' : ''}`;
  return Object.fromEntries([...found].map(([v, m]) => [v, [...m.values()].sort((a, b) => order(a).localeCompare(order(b)))]));
}

/** `value: table.column (n rows: path, path), …` a line per value, for a failure message or a report. */
export function describeFound(found: Record<string, Found[]>): string {
  return Object.entries(found)
    .map(([value, at]) => {
      const where = at.length
        ? at
            .map((f) => {
              const sealed = f.sealed ? `, sealed with a key the dump holds (${f.subjects.join(', ')})` : '';
              return `${f.table}.${f.column} (${f.rows} row${f.rows === 1 ? '' : 's'}${sealed}${f.paths.length ? `: ${f.paths.join(', ')}` : ''})`;
            })
            .join('; ')
        : 'nowhere';
      return `${JSON.stringify(value)}: ${where}`;
    })
    .join('\n');
}
