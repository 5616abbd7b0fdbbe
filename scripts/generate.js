// Generates TypeScript types from every contract (src/generated/<contract>.ts). Run by `npm run generate`,
// and before build and test; the output is not committed.
// Only what changed is generated again: src/generated/.stamp.json keeps, per contract, the hash of its text, of the
// generator (this file and the installed dependency tree) and of the file written. A contract whose hashes all still
// match is skipped; a file that comes out byte for byte as before is not rewritten, so the incremental build
// (scripts/build.js) sees nothing new. GENERATE_FORCE=1 generates everything again.
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const out = path.join(root, 'src/generated');
const stampFile = path.join(out, '.stamp.json');
const bin = path.join(root, 'node_modules/openapi-typescript/bin/cli.js');

const sha256 = (...parts) => {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
};
const readOrEmpty = (file) => {
  try {
    return fs.readFileSync(file);
  } catch {
    return Buffer.alloc(0);
  }
};

/** Generates everything whose stamp no longer matches; returns how many contracts were generated. */
function generate({ force = process.env.GENERATE_FORCE === '1' } = {}) {
  fs.mkdirSync(out, { recursive: true });
  // npm's record of the installed tree (node_modules/.package-lock.json) changes with any install: a new
  // openapi-typescript, redocly or typescript can change the output.
  let installed = readOrEmpty(path.join(root, 'node_modules/.package-lock.json'));
  if (installed.length === 0) installed = readOrEmpty(path.join(root, 'package-lock.json'));
  const generator = sha256(fs.readFileSync(__filename), installed);
  let stamp = {};
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    // no stamp yet (or a broken one): everything is generated
  }
  const before = stamp.generator === generator && !force ? (stamp.contracts ?? {}) : {};
  const contracts = {};
  const failures = [];
  let generated = 0;
  const yamls = fs.readdirSync(path.join(root, 'contracts')).filter((f) => f.endsWith('.yaml'));
  try {
    for (const file of yamls.sort()) {
      const source = path.join(root, 'contracts', file);
      const target = path.join(out, file.replace(/\.yaml$/, '.ts'));
      const input = sha256(fs.readFileSync(source));
      const last = before[file];
      if (last && last.input === input && last.output === sha256(readOrEmpty(target))) {
        contracts[file] = last;
        continue;
      }
      const tmp = `${target}.${process.pid}.tmp`;
      try {
        execFileSync(process.execPath, [bin, source, '-o', tmp, '--alphabetize'], { stdio: 'pipe' });
        const text = fs.readFileSync(tmp);
        if (Buffer.compare(text, readOrEmpty(target)) !== 0) fs.renameSync(tmp, target);
        contracts[file] = { input, output: sha256(text) };
        generated += 1;
      } catch (e) {
        failures.push(`could not generate types from contracts/${file}:\n${e.stderr?.toString().trim() || e.message}`);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    }
  } finally {
    // Also after a failure: what was generated is recorded, a contract that failed is not (it is tried again).
    if (JSON.stringify(stamp) !== JSON.stringify({ generator, contracts })) {
      const tmp = `${stampFile}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, `${JSON.stringify({ generator, contracts }, null, 2)}\n`);
      fs.renameSync(tmp, stampFile);
    }
  }
  if (failures.length > 0) throw new Error(failures.join('\n\n'));
  return generated;
}

module.exports = { generate };

if (require.main === module) {
  try {
    const generated = generate();
    const where = `${path.relative(root, out)}/`;
    console.log(generated > 0 ? `types generated in ${where}` : `types in ${where} are up to date`);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
