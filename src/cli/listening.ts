/**
 * Where a locally started service listens, for the tools run beside it in another shell (the operator CLI, `npm run
 * certify`), which do not see the PORT that `npm start` was given: `npm start` (src/main.ts), outside production,
 * writes DATA_DIR/listening.json when it listens and removes it when it stops; the tools read it when neither an
 * option nor their own environment names the service. A file left by a process that is gone (kill -9) is ignored.
 */
import fs from 'node:fs';
import path from 'node:path';

export const LISTENING_FILE = 'listening.json';

/** What the file holds. */
export interface Listening {
  pid: number;
  /** The Transfers API, the consoles and the driver app: `http://127.0.0.1:<PORT>`. */
  url: string;
  /** The operator API: OPS_LISTEN's address when set, else `url`. */
  ops_url: string;
  started_at: string;
}

/** The file, for a DATA_DIR (the tools' default, as the service's: ./data, from the working directory). */
export const listeningFile = (dataDir: string | undefined): string => path.resolve(dataDir || './data', LISTENING_FILE);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user has that pid, and it is running.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The service the file names, when there is one and its process is still running. */
export function readListening(dataDir: string | undefined): Listening | undefined {
  let found: Partial<Listening>;
  try {
    found = JSON.parse(fs.readFileSync(listeningFile(dataDir), 'utf8')) as Partial<Listening>;
  } catch {
    return undefined;
  }
  const { pid, url, ops_url } = found;
  if (typeof pid !== 'number' || typeof url !== 'string' || !URL.canParse(url) || !alive(pid)) return undefined;
  return { pid, url, ops_url: typeof ops_url === 'string' && URL.canParse(ops_url) ? ops_url : url, started_at: String(found.started_at ?? '') };
}

/**
 * Writes the file for this process (beside the operator token, private to its user) and returns what removes it: only
 * while it still names this process, so a second service started on the same DATA_DIR keeps its own.
 */
export function writeListening(dataDir: string, where: { url: string; opsUrl: string }, pid = process.pid): () => void {
  const file = listeningFile(dataDir);
  const entry: Listening = { pid, url: where.url, ops_url: where.opsUrl, started_at: new Date().toISOString() };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  return () => {
    try {
      if ((JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Listening>).pid === pid) fs.rmSync(file, { force: true });
    } catch {
      // Gone already, or not ours to read: nothing to remove.
    }
  };
}
