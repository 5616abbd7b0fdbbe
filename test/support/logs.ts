import { Writable } from 'node:stream';
import { makeLogger, type Logger } from '../../src/shared/logger';

/** A logger whose lines (JSON, one per record) the test reads back. */
export function capturedLogger(level = 'info'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: makeLogger(level, sink), lines };
}
