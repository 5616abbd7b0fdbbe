/**
 * `npm run bench` (builds, then runs this): the quoting engine in-process (its own child process), then the HTTP
 * benchmark on PostgreSQL and on the embedded database (bench/http.bench.ts): baseline, ceilings, every scenario,
 * growth and query plans; then what an anonymous flood costs (bench/abuse.bench.ts). Prints as it goes, writes bench/results/latest.md, latest.json and ratios.svg, exits 1 if
 * a check failed. Options: BENCH_ENGINE_SECONDS, and the HTTP bench's (see bench/http.bench.ts).
 *
 * `npm run bench -- --against <commit> [--rounds N] [--scenarios LIST]` instead compares this tree's build with that commit's, scenario
 * by scenario, alternately (bench/compare.ts; `--new <commit>` measures that commit instead of this tree). `--seconds
 * S`, `--warmup S`, `--connections N` and `--databases LIST` stand for BENCH_SECONDS, BENCH_WARMUP_SECONDS,
 * BENCH_CONNECTIONS and BENCH_DATABASES, in either mode.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { optionsFromEnv, runHttpBench, RESULTS_DIR } from './http.bench';
import { runComparison } from './compare';
import { parseScenarios } from './compare-report';
import { databaseTable, writeResults } from './report';
import { killChildren } from './processes';
import { runAbuseBench } from './abuse.bench';

const OPTIONS = ['against', 'new', 'rounds', 'scenarios', 'seconds', 'warmup', 'connections', 'databases'];

function runEngineBench(): Promise<{ output: string; exitCode: number | null }> {
  const secs = process.env.BENCH_ENGINE_SECONDS;
  const child = spawn(process.execPath, [path.join(__dirname, 'quote-engine.bench.js'), ...(secs ? [`--seconds=${secs}`] : [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const take = (chunk: Buffer, to: NodeJS.WriteStream) => {
    output += chunk.toString('utf8');
    to.write(chunk);
  };
  child.stdout.on('data', (c: Buffer) => take(c, process.stdout));
  child.stderr.on('data', (c: Buffer) => take(c, process.stderr));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ output, exitCode: code }));
  });
}

async function main(): Promise<void> {
  const onSignal = () => {
    killChildren();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let args: Partial<Record<string, string>>;
  try {
    args = parseArgs({ options: Object.fromEntries(OPTIONS.map((o) => [o, { type: 'string' as const }])) }).values as Record<string, string>;
    if (args.new !== undefined && args.against === undefined) throw new Error('--new goes with --against');
    if (args.rounds !== undefined && !/^[1-9]\d*$/.test(args.rounds)) throw new Error(`--rounds must be a positive integer, got ${args.rounds}`);
    if (args.scenarios !== undefined && args.against === undefined) throw new Error('--scenarios goes with --against');
    parseScenarios(args.scenarios);
  } catch (e) {
    console.error(
      `bench: ${(e as Error).message}\nusage: npm run bench [-- [--against <commit> [--new <commit>] [--rounds N] [--scenarios ping,quote,…]] [--seconds S] [--warmup S] [--connections N] [--databases postgres,embedded]]`,
    );
    process.exitCode = 2;
    return;
  }
  const env = { seconds: 'BENCH_SECONDS', warmup: 'BENCH_WARMUP_SECONDS', connections: 'BENCH_CONNECTIONS', databases: 'BENCH_DATABASES' } as const;
  for (const [option, name] of Object.entries(env)) if (args[option] !== undefined) process.env[name] = args[option];
  if (args.against !== undefined) {
    process.exitCode = await runComparison({
      ...optionsFromEnv(),
      against: args.against,
      new: args.new,
      rounds: Number(args.rounds ?? 3),
      scenarios: parseScenarios(args.scenarios),
    });
    return;
  }
  if (args.rounds !== undefined) process.env.BENCH_ROUNDS = args.rounds;
  console.log('== quote engine (in-process, one core) ==');
  const engine = await runEngineBench();
  const http = await runHttpBench();
  console.log('\n== results ==');
  for (const d of http.databases) {
    console.log(`\n${d.label}\n\n${databaseTable(d)}\n`);
    for (const c of d.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
  }
  console.log('\n== an anonymous flood (default limits, embedded database in memory) ==');
  const abuse = await runAbuseBench();
  console.log(
    `${abuse.requests} keyless 60 KiB POSTs from one address in ${abuse.seconds.toFixed(1)} s: ${abuse.unauthorized} × 401, ${abuse.limited} × 429, ${abuse.other} other; ${abuse.bytesPerRequest} bytes of database each`,
  );
  writeResults(http, engine);
  console.log(`\nwritten: ${path.relative(process.cwd(), RESULTS_DIR)}/latest.md, latest.json, ratios.svg`);
  if (engine.exitCode !== 0 || !http.ok) process.exitCode = 1;
}

main().then(
  () => setTimeout(() => process.exit(), 2_000).unref(),
  (e: Error) => {
    console.error(e.stack ?? e);
    killChildren();
    process.exit(1);
  },
);
