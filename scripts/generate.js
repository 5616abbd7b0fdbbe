// Generates TypeScript types from every contract (src/generated/<contract>.ts). Run by `npm run generate`,
// and before build and test; the output is not committed.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const root = path.join(__dirname, '..');
const out = path.join(root, 'src/generated');
fs.mkdirSync(out, { recursive: true });
const bin = path.join(root, 'node_modules/openapi-typescript/bin/cli.js');
for (const file of fs.readdirSync(path.join(root, 'contracts')).filter((f) => f.endsWith('.yaml'))) {
  const target = path.join(out, file.replace(/\.yaml$/, '.ts'));
  execFileSync(process.execPath, [bin, path.join(root, 'contracts', file), '-o', target, '--alphabetize'], { stdio: 'pipe' });
}
console.log(`types generated in ${path.relative(root, out)}/`);
