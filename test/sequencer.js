// Jest's sequencer, but a folder's group file (test/support/grouped.ts) weighs what its folder's test files weigh:
// before any run has been timed (a clean clone), jest orders files by their size, and every group file is the same
// few lines. Largest first keeps the two workers busy to the end instead of one finishing a big folder alone.
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const GROUP = '.group.ts';

function folderBytes(file) {
  const dir = path.dirname(file);
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
}

module.exports = class GroupedSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((t) => !t.path.endsWith(GROUP) || t.duration != null)) return sorted;
    const bytes = new Map(sorted.map((t) => [t.path, folderBytes(t.path)]));
    return sorted.sort((a, b) => bytes.get(b.path) - bytes.get(a.path));
  }
};
