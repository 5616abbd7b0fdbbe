import fs from 'node:fs';
import path from 'node:path';

/**
 * Every test file of `folder` (named `*<suffix>`), run as one jest test file (`npm test` does; a file named on the
 * command line still runs alone). Jest gives each test file a module registry of its own, so each file loaded the
 * service's modules, compiled its contracts' validators and warmed its caches again: about 4 s of CPU an integration
 * file, more than most files' tests. A group loads them once for all its files.
 *
 * Each file is required inside a describe block named after it, so its hooks (the service it starts in beforeAll,
 * a mock server it listens with) stay its own: they run around its tests only, one file after the other, as when
 * the file runs alone. A file must therefore leave nothing behind that a later one could see: it stops what it
 * started in afterAll and restores what it changed (process.env, a mock server), as it already must for `--watch`.
 */
export function runGrouped(folder: string, suffix = '.int.test.ts'): void {
  const files = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith(suffix))
    .sort();
  for (const name of files) {
    describe(name, () => {
      loading = path.join(folder, name);
      try {
        // Synchronously, inside the describe: the file's tests and hooks register in it (an import would hoist).
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require(loading);
      } finally {
        loading = undefined;
      }
    });
  }
}

let loading: string | undefined;

/** The test file a group is loading, while it registers its tests (a skipped test's line names it: skip.ts). */
export const fileBeingGrouped = (): string | undefined => loading;
