/**
 * The two builds `npm run bench -- --against <commit>` compares: the working tree as built (its dist/), and the given
 * commit, checked out in a work tree of its own and built there. That work tree is kept, keyed by the full commit
 * hash, under the temporary directory (lanka-transfers-bench/<hash>), and reused by the next run against the same
 * commit; its node_modules is a link to the working tree's. `git worktree remove --force <dir>` drops one.
 *
 * Nothing here changes the working tree's own checkout: `git worktree add --detach` only registers the new tree.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './processes';

export interface Build {
  /** "new" (the working tree) or "old" (the commit compared against). */
  role: 'new' | 'old';
  /** Short commit, with +dirty for a working tree with changes. */
  label: string;
  commit: string | null;
  /** The tree whose dist/src/main.js is the service. */
  root: string;
}

const git = (args: string[], cwd = REPO_ROOT) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The working tree, as `npm run bench` has just built it. */
export function currentBuild(): Build {
  let commit: string | null = null;
  let label = 'working tree';
  try {
    commit = git(['rev-parse', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
    label = `${commit.slice(0, 7)}${dirty ? '+dirty' : ''}`;
  } catch {
    // not a git checkout: keep the plain label
  }
  return { role: 'new', label, commit, root: REPO_ROOT };
}

export class BuildError extends Error {}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Checks `ref` out in its own work tree (or finds the one made before) and builds it there with its own build. */
export async function prepareBuild(ref: string, log: (line: string) => void, role: Build['role'] = 'old'): Promise<Build> {
  let commit: string;
  try {
    commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new BuildError(`${ref}: not a commit of this repository`);
  }
  const label = commit.slice(0, 7);
  const dir = path.join(os.tmpdir(), 'lanka-transfers-bench', commit);
  const stamp = path.join(dir, '.bench-built');
  const ours = () => {
    try {
      return (
        git(['rev-parse', 'HEAD'], dir) === commit &&
        fs.realpathSync(git(['rev-parse', '--git-common-dir'], dir)) === fs.realpathSync(path.join(REPO_ROOT, '.git'))
      );
    } catch {
      return false;
    }
  };
  if (fs.existsSync(stamp) && ours() && fs.existsSync(path.join(dir, 'dist/src/main.js'))) {
    log(`${role} build: ${label}, built before in ${dir}`);
    return { role, label, commit, root: dir };
  }
  if (fs.existsSync(dir) && !ours()) {
    log(`${role} build: ${dir} is not a work tree of ${label}: made again`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    try {
      // --force: the path may still be registered from a work tree deleted by hand.
      git(['worktree', 'add', '--force', '--detach', dir, commit]);
    } catch (e) {
      throw new BuildError(`cannot check ${label} out in ${dir}: ${(e as { stderr?: string }).stderr ?? String(e)}`);
    }
  }
  const modules = path.join(dir, 'node_modules');
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), modules, 'dir');
  // Its own build: scripts/build.js where the commit has one, else its package.json's "build" script.
  const own = fs.existsSync(path.join(dir, 'scripts/build.js'));
  const [cmd, args] = own ? [process.execPath, ['scripts/build.js']] : ['npm', ['run', '--silent', 'build']];
  log(`${role} build: building ${label} in ${dir} (${own ? 'node scripts/build.js' : 'npm run build'})…`);
  const t0 = Date.now();
  const built = await run(cmd, args, dir);
  if (built.code !== 0 || !fs.existsSync(path.join(dir, 'dist/src/main.js'))) {
    const tail = built.output.trim().split('\n').slice(-40).join('\n');
    throw new BuildError(`commit ${label} does not build (exit ${built.code}) in ${dir}:\n${tail}`);
  }
  fs.writeFileSync(stamp, `${new Date().toISOString()} ${own ? 'node scripts/build.js' : 'npm run build'}\n`);
  log(`${role} build: ${label} built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return { role, label, commit, root: dir };
}

/**
 * What a fresh database gets before the service's first start, made by the build's own code (its migrations, its
 * partner table): one partner. An older service seeds a demo partner (and, embedded, a demo fleet that would cap
 * bookings at its 11 vehicles) on an empty database; a partner made first keeps every build's start alike.
 */
const SEED = `
const d = require('node:path').join(process.cwd(), 'dist/src');
const { loadConfig } = require(d + '/config/env');
const { makeKnex, migrateLatest } = require(d + '/data/knex');
const { Database } = require(d + '/data/database');
const { createPartner } = require(d + '/domain/partners/partners');
(async () => {
  const config = loadConfig(process.env);
  const knex = makeKnex(config);
  try {
    await migrateLatest(knex, config.databaseSchema);
    await createPartner(new Database(knex), { name: 'Bench (made before the first start)' });
  } finally {
    await knex.destroy();
  }
})().catch((e) => { console.error(e); process.exit(1); });
`;

export function seedBeforeStart(build: Build, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', SEED],
      { cwd: build.root, env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env }, timeout: 180_000 },
      (err, _stdout, stderr) => (err ? reject(new Error(`seeding for ${build.label} failed: ${stderr || err.message}`)) : resolve()),
    );
  });
}
