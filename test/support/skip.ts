/**
 * Tests that run only where the environment allows it (a PostgreSQL server, an interpreter on the PATH). Where it
 * does not, the test is still registered, skipped, with the reason in its name (so the JSON results and a verbose
 * run say it), and one line naming the file, the test and the reason is written to stderr, so a plain run says what
 * it did not test and why instead of a bare "skipped" count. (Not console.warn: jest prints no console output for a
 * file whose tests are all skipped.) Where it does, the test is registered exactly as `it` or `describe` would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileBeingGrouped } from './grouped';
import { backend } from './test-app';

type TestFn = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;
type BlockFn = (name: string, fn: () => void) => void;

const said = new Set<string>();

/** The skipped test's name: its own, then why it did not run. */
export const skippedName = (name: string, reason: string) => `${name} — skipped: ${reason}`;

function say(name: string, reason: string): void {
  const testPath = fileBeingGrouped() ?? expect.getState().testPath;
  const line = `SKIPPED ${testPath ? `${path.relative(process.cwd(), testPath)} › ` : ''}${skippedName(name, reason)}`;
  if (said.has(line)) return;
  said.add(line);
  process.stderr.write(`${line}\n`);
}

/** `it` where `cond` holds; elsewhere a skipped test that says `reason`. */
export function itIf(cond: boolean, reason: string): TestFn {
  if (cond) return it;
  return (name, fn, timeout) => {
    say(name, reason);
    it.skip(skippedName(name, reason), fn, timeout);
  };
}

/** `describe` where `cond` holds; elsewhere a skipped block that says `reason`. */
export function describeIf(cond: boolean, reason: string): BlockFn {
  if (cond) return describe;
  return (name, fn) => {
    say(name, reason);
    describe.skip(skippedName(name, reason), fn);
  };
}

/** Why a test needs the PostgreSQL run: `why` says what it does that the embedded database cannot. */
export const needsPostgres = (why: string) => `needs PostgreSQL (${why}); this run is on ${backend}: set DATABASE_URL to run it`;

/**
 * Why a variant runs on the embedded run only: with DATABASE_URL set, the same test's PostgreSQL variant runs, and
 * the embedded one has already run in the pass without it (CI runs both passes).
 */
export const onEmbeddedRun = (what: string) => `${what} runs where DATABASE_URL is unset (the embedded run); this run is on ${backend}`;

/** `it` on the PostgreSQL run only. */
export const itOnPostgres = (why: string): TestFn => itIf(backend === 'postgres', needsPostgres(why));

/** `describe` on the PostgreSQL run only. */
export const describeOnPostgres = (why: string): BlockFn => describeIf(backend === 'postgres', needsPostgres(why));

/**
 * Set by .ci/run: a test that needs a system program (chromium, promtool, prometheus) runs, and fails without it,
 * instead of being skipped, so CI never passes by skipping what a fresh machine lacks.
 */
const PROGRAMS_REQUIRED = process.env.TEST_REQUIRE_SYSTEM_PROGRAMS === 'true';

const executable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/** Whether `program` (a name looked up on the PATH, or a path) can be run here. */
export function hasProgram(program: string): boolean {
  if (program.includes('/')) return executable(program);
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && executable(path.join(dir, program)));
}

/** The install step .ci/run uses (and npm test, as root): scripts/system-programs.js. */
const INSTALL = 'node scripts/system-programs.js install';

/** Why a test did not run: the program it needs and the command that installs it. */
export const needsProgram = (program: string) =>
  `needs ${program}, not found here: install it with \`${INSTALL}\` as root (npm test does when it runs as root)`;

/** `describe` where `program` can run (or CI requires it); elsewhere a skipped block that says how to get it. */
export const describeWithProgram = (program: string): BlockFn => describeIf(PROGRAMS_REQUIRED || hasProgram(program), needsProgram(program));

/** `it` where `program` can run (or CI requires it); elsewhere a skipped test that says how to get it. */
export const itWithProgram = (program: string): TestFn => itIf(PROGRAMS_REQUIRED || hasProgram(program), needsProgram(program));
