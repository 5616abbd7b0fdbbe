import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Config } from '../../src/config/env';
import { makeKnex, migrateLatest } from '../../src/data/knex';

/**
 * An embedded database already migrated, to start each test's database from: starting PGlite from a dumped data
 * directory skips initdb and the migrations (about 3 s of CPU for every test database). The dump is made once per
 * set of migrations and kept under node_modules/.cache (keyed by their contents, so a changed migration makes a new
 * one); each test still runs the migrations, which then find nothing to do.
 */
const root = path.resolve(__dirname, '../..');
const migrationsDir = path.join(root, 'migrations');
const cacheDir = path.join(root, 'node_modules/.cache/pglite-template');

let loaded: Promise<Blob> | undefined;

export function migratedTemplate(config: Config): Promise<Blob> {
  loaded ??= load(config);
  return loaded;
}

async function load(config: Config): Promise<Blob> {
  const file = path.join(cacheDir, `${migrationsHash()}.tar`);
  if (!fs.existsSync(file)) await build(config, file);
  return new TemplateFile(readAll(file));
}

/**
 * The dump as the Blob PGlite loads it from, without copying it: PGlite only asks for its bytes, and copies each file
 * out of them. (A Blob made of the 43 MB, as `new Blob([bytes])`, copies them in, and Node hands them back in 64 kB
 * pieces: 0.3 s of CPU per database.)
 */
class TemplateFile extends Blob {
  constructor(private readonly dump: ArrayBuffer) {
    super([]);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.dump);
  }
}

function readAll(file: string): ArrayBuffer {
  const bytes = new Uint8Array(fs.statSync(file).size);
  const fd = fs.openSync(file, 'r');
  try {
    for (let at = 0; at < bytes.length;) at += fs.readSync(fd, bytes, at, bytes.length - at, at);
  } finally {
    fs.closeSync(fd);
  }
  return bytes.buffer;
}

/** The migrations' contents, hashed: a template made from other migrations is never used. */
export function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const name of fs.readdirSync(migrationsDir).sort()) hash.update(name).update(fs.readFileSync(path.join(migrationsDir, name)));
  return hash.digest('hex').slice(0, 16);
}

async function build(config: Config, file: string): Promise<void> {
  let pglite: PGlite | undefined;
  const db = makeKnex({ ...config, databaseUrl: undefined, databaseSchema: undefined, dataDir: 'memory://' }, { made: (p) => (pglite = p) });
  try {
    await migrateLatest(db);
    const dump = await pglite!.dumpDataDir('none');
    fs.mkdirSync(cacheDir, { recursive: true });
    // Written aside and renamed: workers building it at once never read half a file.
    const partial = `${file}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  } finally {
    await db.destroy();
  }
}
