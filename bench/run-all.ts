/**
 * Every benchmark, one after the other: `npm run bench` (builds, then runs this).
 *   1. the quoting engine in-process (bench/quote-engine.bench.ts runs on load, so it gets a child process of its
 *      own; its output is captured and shown as it comes);
 *   2. the HTTP benchmark on PostgreSQL (bench/http.bench.ts).
 * Prints everything, writes bench/results/latest.md and latest.json (both benchmarks), exits 1 if either failed.
 * Options: BENCH_ENGINE_SECONDS (per engine measurement, default the engine bench's own), and the HTTP bench's
 * BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS, BENCH_DATABASE_URL.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { markdownTable, runHttpBench, writeResults, RESULTS_DIR } from './http.bench';

function runEngineBench(): Promise<{ output: string; exitCode: number | null }> {
  const script = path.join(__dirname, 'quote-engine.bench.js');
  const secs = process.env.BENCH_ENGINE_SECONDS;
  const args = [script, ...(secs ? [`--seconds=${secs}`] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (chunk: Buffer, to: NodeJS.WriteStream) => {
      output += chunk.toString('utf8');
      to.write(chunk);
    };
    child.stdout.on('data', (c: Buffer) => take(c, process.stdout));
    child.stderr.on('data', (c: Buffer) => take(c, process.stderr));
    child.on('error', reject);
    child.on('close', (code) => resolve({ output, exitCode: code }));
  });
}

async function main(): Promise<void> {
  console.log('== 1/2 quote engine (in-process, one core) ==');
  const engine = await runEngineBench();
  if (engine.exitCode !== 0) console.log(`quote engine bench exited with ${engine.exitCode}`);

  console.log('\n== 2/2 HTTP end to end on PostgreSQL ==');
  const http = await runHttpBench();

  console.log('\n== results ==\n');
  console.log('Quote engine:');
  console.log(engine.output.trim());
  console.log(`\nHTTP (${http.settings.connections} connections, ${http.settings.seconds} s measured; ${http.machine.cpus} cores shared by service, PostgreSQL and load generator):\n`);
  console.log(markdownTable(http));
  console.log('');
  for (const c of http.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
  for (const n of http.notes) console.log(n);
  writeResults(http, engine);
  console.log(`\nwritten: ${path.relative(process.cwd(), path.join(RESULTS_DIR, 'latest.md'))}, ${path.relative(process.cwd(), path.join(RESULTS_DIR, 'latest.json'))}`);
  if (engine.exitCode !== 0 || !http.ok) process.exitCode = 1;
}

main().then(
  // Nothing should be left running; if something is, do not hang the terminal.
  () => setTimeout(() => process.exit(), 2_000).unref(),
  (e: Error) => {
    console.error(e.stack ?? e);
    process.exit(1);
  },
);
