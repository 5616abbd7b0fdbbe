import fs from 'node:fs';
import path from 'node:path';

/** The repository root (the folder holding package.json), whether running from src/ under jest or from dist/. */
function findRoot(from: string): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${from}`);
    dir = up;
  }
  return dir;
}

export const ROOT_DIR = findRoot(__dirname);
export const CONTRACTS_DIR = path.join(ROOT_DIR, 'contracts');
