/**
 * The report of `npm run bench -- --against <commit>` (bench/compare.ts): per database and scenario, each build's
 * throughput round by round, new ÷ old of the medians, the spread of the per-round ratios, and p99; as a markdown
 * table (printed, and bench/results/against-<commit>.md) and as JSON (bench/results/against-<commit>.json).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fmtInt, RESULTS_DIR } from './http.bench';

/** The scenarios compared: those of bench/http.bench.ts, and a booking read by its reference. */
export const COMPARED = ['ping', 'quote', 'booking', 'replay', 'read', 'search'] as const;
export type Compared = (typeof COMPARED)[number];
export const COMPARED_NAMES: Record<Compared, string> = {
  ping: 'Ping',
  quote: 'Quote (CMB → Kandy, 8 offers)',
  booking: 'Booking (a fresh offer each)',
  replay: 'Booking replay (same key and body)',
  read: 'Booking read (GET by reference)',
  search: 'Marketplace search (signed)',
};

export interface Measure {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU time per request (warm-up included) of the service's process and of the database's (0 embedded: in-process), µs. */
  serviceCpuUs?: number;
  databaseCpuUs?: number;
  /** PostgreSQL: bytes of write-ahead log per request (warm-up included). Reports written before it have none. */
  databaseWalBytes?: number;
  ok: boolean;
  note?: string;
}

export interface CompareReport {
  generatedAt: string;
  new: { label: string; commit: string | null };
  old: { label: string; commit: string | null };
  /** `scenarios`: those measured (`--scenarios`; all of COMPARED when absent, as in reports written before it). */
  settings: { rounds: number; seconds: number; warmupSeconds: number; connections: number; databases: string[]; scenarios?: Compared[] };
  machine: { cpus: number; cpuModel: string; node: string; postgres: string };
  /** Round i of each build: `rounds.new[i]`, `rounds.old[i]`, measured back to back (new first). */
  databases: Array<{ database: string; label: string; rounds: Record<'new' | 'old', Array<Partial<Record<Compared, Measure>>>> }>;
  minutes: number;
  /** --new, when the new build was a commit rather than the working tree. */
  newRef?: string;
}

export interface Summary {
  id: Compared;
  name: string;
  newRps: number[];
  oldRps: number[];
  /** median(new) ÷ median(old). */
  ratio: number;
  /** new_i ÷ old_i, round by round. */
  roundRatios: number[];
  newP99Ms: number;
  oldP99Ms: number;
  /** Medians over the rounds of CPU µs per request: the service's, the database's. */
  cpuUs: Record<'new' | 'old', { service: number; database: number }>;
  /** Medians over the rounds of WAL bytes per request (PostgreSQL, when measured). */
  walBytes?: Record<'new' | 'old', number>;
  ok: boolean;
  notes: string[];
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** The scenarios a report measured, in COMPARED's order. */
export function measured(r: CompareReport): Compared[] {
  return r.settings.scenarios ?? [...COMPARED];
}

/** `--scenarios ping,quote`: a subset of COMPARED, in its order; all of them when absent. */
export function parseScenarios(list: string | undefined): Compared[] {
  if (list === undefined) return [...COMPARED];
  const asked = list.split(',').map((x) => x.trim());
  const unknown = asked.filter((x) => !(COMPARED as readonly string[]).includes(x));
  if (unknown.length || !asked.length) throw new Error(`--scenarios takes some of ${COMPARED.join(',')}; not ${unknown.join(',') || 'an empty list'}`);
  return COMPARED.filter((id) => asked.includes(id));
}

export function summarise(d: CompareReport['databases'][number], scenarios: Compared[]): Summary[] {
  return scenarios.map((id) => {
    const news = d.rounds.new.map((r) => r[id]!);
    const olds = d.rounds.old.map((r) => r[id]!);
    const newRps = news.map((m) => m.requestsPerSec);
    const oldRps = olds.map((m) => m.requestsPerSec);
    const all = [...news.map((m) => ({ m, who: 'new' })), ...olds.map((m) => ({ m, who: 'old' }))];
    const walOf = (ms: Measure[]) => median(ms.map((m) => m.databaseWalBytes ?? 0));
    return {
      id,
      name: COMPARED_NAMES[id],
      newRps,
      oldRps,
      ratio: r3(median(newRps) / median(oldRps)),
      roundRatios: newRps.map((n, i) => r3(n / oldRps[i])),
      newP99Ms: median(news.map((m) => m.p99Ms)),
      oldP99Ms: median(olds.map((m) => m.p99Ms)),
      cpuUs: {
        new: { service: median(news.map((m) => m.serviceCpuUs ?? 0)), database: median(news.map((m) => m.databaseCpuUs ?? 0)) },
        old: { service: median(olds.map((m) => m.serviceCpuUs ?? 0)), database: median(olds.map((m) => m.databaseCpuUs ?? 0)) },
      },
      ...(all.every(({ m }) => m.databaseWalBytes !== undefined) ? { walBytes: { new: walOf(news), old: walOf(olds) } } : {}),
      ok: all.every(({ m }) => m.ok),
      notes: all.filter(({ m }) => !m.ok).map(({ m, who }) => `${who}: ${m.note ?? 'no response'}`),
    };
  });
}

const cpu = (c: { service: number; database: number }) => `${fmtInt(c.service)} + ${fmtInt(c.database)}`;

export function compareTable(r: CompareReport): string {
  const s = r.settings;
  const out: string[] = [];
  for (const d of r.databases) {
    out.push(
      `${d.label}: new ${r.new.label} ÷ old ${r.old.label}, ${s.rounds} rounds (new, old alternately), ${s.connections} connections, ${s.warmupSeconds} s warm-up + ${s.seconds} s per scenario`,
      '',
      '| Scenario | new req/s, by round | old req/s, by round | new ÷ old (medians) | round ratios, min–max | p99 ms new | p99 ms old | CPU µs/req new: service + db | old: service + db |',
      '|---|--:|--:|--:|:-:|--:|--:|--:|--:|',
    );
    const notes: string[] = [];
    const rows = summarise(d, measured(r));
    const wal = rows.every((x) => x.walBytes);
    if (wal) {
      out[out.length - 2] += ' WAL bytes/req new | old |';
      out[out.length - 1] += '--:|--:|';
    }
    for (const x of rows) {
      const min = Math.min(...x.roundRatios);
      const max = Math.max(...x.roundRatios);
      out.push(
        `| ${x.ok ? '' : '**FAILED** '}${x.name} | ${x.newRps.map(fmtInt).join(' · ')} | ${x.oldRps.map(fmtInt).join(' · ')} | ${x.ratio.toFixed(2)} | ${min.toFixed(2)}–${max.toFixed(2)} | ${x.newP99Ms.toFixed(1)} | ${x.oldP99Ms.toFixed(1)} | ${cpu(x.cpuUs.new)} | ${cpu(x.cpuUs.old)} |${wal ? ` ${fmtInt(x.walBytes!.new)} | ${fmtInt(x.walBytes!.old)} |` : ''}`,
      );
      notes.push(...x.notes.map((n) => `- ${x.name}, ${n}`));
    }
    out.push('', ...notes, ...(notes.length ? [''] : []));
  }
  out.push(
    'new ÷ old: the median of the new build’s rounds ÷ the median of the old one’s. Round ratios: new_i ÷ old_i for each round i ' +
      '(its two runs back to back), lowest and highest; a difference inside that range is not one this run can tell from noise. ' +
      'p99: the median over the rounds of each round’s p99 (client side, every measured response). ' +
      'CPU µs/req: the CPU time the service’s process and PostgreSQL’s processes used during the run (warm-up included) ÷ the responses, ' +
      'median over the rounds; far steadier than req/s on a shared machine, and it says which side a change is on (embedded: the database is in the service). ' +
      'WAL bytes/req (PostgreSQL): the write-ahead log written during the run (warm-up included) ÷ the responses, median over the rounds: ' +
      'what each request wrote to the database (rows, index entries, page images), which the machine’s load does not move; ' +
      'it also counts whatever else wrote meanwhile (the idle service’s background work, autovacuum), which is small.',
  );
  return out.join('\n');
}

/** Writes bench/results/against-<old commit>.md and .json; says whether every scenario answered as expected. */
export function writeComparison(r: CompareReport): { ok: boolean; files: string[] } {
  const summaries = r.databases.map((d) => ({ database: d.database, scenarios: summarise(d, measured(r)) }));
  const ok = summaries.every((d) => d.scenarios.every((x) => x.ok));
  const m = r.machine;
  const markdown = [
    `# ${r.new.label} against ${r.old.label}`,
    '',
    `${r.generatedAt.slice(0, 16).replace('T', ' ')} UTC, ${r.minutes} min. Machine: ${m.cpus} cores (${m.cpuModel}), shared by both services ` +
      `(both up, measured one at a time), the database and the load generator; Node ${m.node}, PostgreSQL ${m.postgres}.`,
    '',
    compareTable(r),
    '',
    `Reproduce: \`npm run bench -- --against ${r.old.label}${r.newRef ? ` --new ${r.newRef}` : ''} --rounds ${r.settings.rounds} --seconds ${r.settings.seconds} --warmup ${r.settings.warmupSeconds} --databases ${r.settings.databases.join(',')}${r.settings.scenarios ? ` --scenarios ${r.settings.scenarios.join(',')}` : ''}\``,
    '',
  ].join('\n');
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const subset = r.settings.scenarios && r.settings.scenarios.length < COMPARED.length ? `.${r.settings.scenarios.join('-')}` : '';
  const base = path.join(RESULTS_DIR, `${r.newRef ? `${r.newRef}-against-${r.old.label}` : `against-${r.old.label}`}${subset}`);
  fs.writeFileSync(`${base}.json`, `${JSON.stringify({ ...r, summaries, ok }, null, 2)}\n`);
  fs.writeFileSync(`${base}.md`, markdown);
  return { ok, files: [`${base}.md`, `${base}.json`] };
}
