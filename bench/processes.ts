/**
 * The benchmark's processes: the service as `npm start` runs it (node dist/src/main.js, NODE_ENV=production), a bare
 * Express echo server (the baseline), the load generator and the ceiling runner, each in a process of its own so
 * that none shares an event loop with another (they do share the machine's cores, as in production).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LoadOutcome, LoadSpec } from './load-generator';
import type { CeilingResult, CeilingSpec } from './ceiling';

/** The repository: the nearest folder above with a package.json (dist/bench when built, bench/ under ts-jest). */
function repoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'migrations'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, '../..');
  }
}
export const REPO_ROOT = repoRoot(__dirname);
const children = new Set<ChildProcess>();

/** Kills every child still running (on an interrupt). */
export function killChildren(): void {
  for (const c of children) c.kill('SIGKILL');
}

function track<T extends ChildProcess>(c: T): T {
  children.add(c);
  c.on('exit', () => children.delete(c));
  return c;
}

/** Forks a bench script, sends it one message, resolves with its one answer. */
function ask<T>(script: string, message: object, limitMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = track(fork(path.join(__dirname, script), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    let settled = false;
    const timer = setTimeout(() => {
      finish(new Error(`${script} did not finish within ${limitMs / 1000} s`));
      child.kill('SIGKILL');
    }, limitMs);
    const finish = (err: Error | null, value?: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value!);
    };
    child.on('message', (msg: { type: 'result'; outcome?: T; result?: T } | { type: 'error'; message: string }) => {
      if (msg.type === 'result') finish(null, (msg.outcome ?? msg.result) as T);
      else finish(new Error(`${script} failed: ${msg.message}`));
    });
    child.on('error', (e) => finish(e));
    child.on('exit', (code, signal) => finish(new Error(`${script} exited (${signal ?? code}) without a result`)));
    child.send(message as never);
  });
}

export const runLoad = (spec: LoadSpec) => ask<LoadOutcome>('load-generator.js', { type: 'run', spec }, (spec.warmupSeconds + spec.seconds) * 1000 + 120_000);
export const runCeiling = (spec: CeilingSpec) => ask<CeilingResult>('ceiling.js', { spec }, (spec.warmupSeconds + spec.seconds) * 1000 + 300_000);

export interface Child {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function listening(child: ChildProcess, pattern: RegExp, what: string): Promise<number> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 120 s:\n${out}`)), 120_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`${what} exited (${code}):\n${out}`)));
  });
}

const stopper = (child: ChildProcess) => () =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** The service, built, as `npm start` runs it, with this environment; from the tree at `root` (this one by default). */
export async function startService(env: Record<string, string>, root = REPO_ROOT): Promise<Child> {
  const main = path.join(root, 'dist/src/main.js');
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: npm run bench builds it`);
  // BENCH_CPU_PROF=<dir>: each service writes a V8 CPU profile there when it stops (docs/performance.md).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = track(
    spawn(process.execPath, [...profile, main], {
      cwd: root,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const port = await listening(child, /listening on port (\d+)/, 'the service');
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: stopper(child) };
}

/** The baseline: a bare Express 5 app with one JSON echo route. */
export async function startEcho(): Promise<Child> {
  const child = track(spawn(process.execPath, [path.join(__dirname, 'echo-server.js')], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const port = await listening(child, /echo listening on (\d+)/, 'the echo server');
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: stopper(child) };
}

/** Resident memory of a process, MB: now, and the peak so far. */
export function memory(pid: number): { rssMb: number; peakMb: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return { rssMb: 0, peakMb: 0 };
  }
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU time (user + system) a process has used so far, µs; 0 where /proc cannot tell. */
export function cpuMicros(pid: number): number {
  try {
    // comm (field 2) may hold spaces: count fields after its closing parenthesis; utime and stime are fields 14, 15.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU time used so far by every PostgreSQL process on this machine (backends and background workers), µs. */
export function postgresCpuMicros(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuMicros(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
