/** The operator CLI's one output formatter: the API's JSON with --json, else a human view. */
import type { Command } from 'commander';
import type { Io } from './io';

/** Prints an answer: as is with --json, else `human()` (key: value lines by default). */
export type Print = (value: object, human?: () => string) => void;

export function createPrint(program: Command, io: Io): Print {
  return (value, human = () => fields(value)) => {
    io.stdout.write(program.opts().json ? `${JSON.stringify(value, null, 2)}\n` : human());
  };
}

const cell = (v: unknown): string => (v === null || v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v));

/** `key: value` lines, the values aligned. */
export function fields(obj: object): string {
  const entries = Object.entries(obj);
  const width = Math.max(0, ...entries.map(([k]) => k.length + 1));
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width)} ${cell(v)}\n`).join('');
}

/** The rows as a table of the columns named, or `(none)`. */
export function table<T>(rows: T[], columns: Array<keyof T & string>): string {
  if (!rows.length) return '(none)\n';
  const lines = [columns as string[], ...rows.map((r) => columns.map((c) => cell(r[c])))];
  const widths = columns.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines
    .map(
      (l) =>
        `${l
          .map((c, i) => c.padEnd(widths[i]))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
