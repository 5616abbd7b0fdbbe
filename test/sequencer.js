// Jest's sequencer, with a better guess for the group files (test/support/grouped.ts) before any run has been timed,
// as on a clean clone: jest would order files by their size, and every group file is the same few lines. Largest
// first keeps the two workers busy to the end instead of one finishing a long folder alone. After the first run
// jest's own timings (in its cache) order them, and this guess is not used.
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const GROUP = '.group.ts';
// The integration folders that take longest, longest first, from the clean CI run of 6a4068b (embedded, seconds):
// developer 51, foundation 43, simulators 42 (a certification's real waits), operator 37 (promtool, Prometheus,
// the CLI), exposure 33. The others follow by the size of their test files.
const SLOWEST = ['developer', 'foundation', 'simulators', 'operator', 'exposure'];

function weight(file) {
  const dir = path.dirname(file);
  const rank = SLOWEST.indexOf(path.basename(dir));
  if (rank >= 0) return Number.MAX_SAFE_INTEGER - rank;
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
}

module.exports = class GroupedSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((t) => !t.path.endsWith(GROUP) || t.duration != null)) return sorted;
    const weights = new Map(sorted.map((t) => [t.path, weight(t.path)]));
    return sorted.sort((a, b) => weights.get(b.path) - weights.get(a.path));
  }
};
