/** @type {import('jest').Config} */
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '..');

// TEST_GROUPED=true (scripts/test.js sets it): the integration phase runs each folder of test/integration/ as one
// jest test file (`<folder>/all.int.group.ts`), and the browser phase its folder (`all.browser.group.ts`), sharing one
// module registry (test/support/grouped.ts). A test file a group does not load would silently not run: refuse to
// start instead. Otherwise (a file named on the command line) file by file.
const grouped = process.env.TEST_GROUPED === 'true';
function groups(folder, suffix, group, depth) {
  const lost = [];
  const walk = (dir, at) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file, at + 1);
      else if (entry.name.endsWith(suffix) && (at !== depth || !fs.existsSync(path.join(dir, group)))) lost.push(path.relative(root, file));
    }
  };
  walk(path.join(root, folder), 0);
  if (lost.length) throw new Error(`not in any group (test/support/grouped.ts): ${lost.join(', ')}: put each beside a ${group} in ${folder}/`);
  return [`<rootDir>/${folder}/${depth ? '*/' : ''}${group}`];
}
// ESM-only deps (marked; msw 2.15: rettime, until-async, @open-draft; pact 16.5: https-proxy-agent,
// agent-base, proxy-agent-negotiate) go through ts-jest, which must emit the module format jest asks for:
// - Node 20 and 22 (and 24.0-24.8): jest require()s them as CommonJS, so they are transpiled to CommonJS.
// - Node 24.9+ with --experimental-vm-modules (scripts/test.js sets it): vm.SourceTextModule#hasAsyncGraph
//   exists, so jest 30 loads every "type": "module" / .mjs file through its native require(esm) path, as an
//   ES module. A CommonJS transpilation evaluated there fails with "ReferenceError: exports is not defined".
// `useESM: true` makes ts-jest follow jest's supportsStaticESM: ES modules when jest loads the file as ESM,
// CommonJS when it requires it as CommonJS. (The .ts sources are always CommonJS: no "type": "module" here.)
const esmOnly = ['marked', 'rettime', 'until-async', '@open-draft', 'https-proxy-agent', 'agent-base', 'proxy-agent-negotiate'];
const base = {
  rootDir: root,
  testEnvironment: 'node',
  // The embedded database's WebAssembly on V8's baseline compiler only: cheaper for short-lived test databases.
  setupFiles: ['<rootDir>/test/wasm-baseline.js'],
  transform: {
    // Transpiled file by file (isolatedModules): the types are checked once per run instead, by scripts/test.js's
    // typecheck step (tsc over src, test, bench…), not again in every test file's worker.
    '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(root, 'test/tsconfig.jest.json') }],
    '^.+\\.m?js$': ['ts-jest', { useESM: true, tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } }],
  },
  // Also when nested (pact keeps its own https-proxy-agent@9 and agent-base@9 while openapi-typescript hoists @7).
  transformIgnorePatterns: [`/node_modules/(?!(?:.*/node_modules/)?(${esmOnly.join('|')})/)`],
};
module.exports = {
  rootDir: root,
  testTimeout: 60000,
  globalSetup: '<rootDir>/test/global-setup.js',
  testSequencer: '<rootDir>/test/sequencer.js',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.unit.test.ts'] },
    {
      ...base,
      displayName: 'integration',
      testMatch: grouped ? groups('test/integration', '.int.test.ts', 'all.int.group.ts', 1) : ['<rootDir>/test/integration/**/*.int.test.ts'],
    },
    // Pact runs in its own projects, with no msw or nock loaded: consumers write contracts/pacts (or TEST_PACT_DIR), verifiers read them.
    { ...base, displayName: 'contract-consumer', testMatch: ['<rootDir>/test/contract/**/*.pact.test.ts'] },
    { ...base, displayName: 'contract-verify', testMatch: ['<rootDir>/test/contract/**/*.verify.test.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'] },
    // Pages in headless Chromium (Debian's, driven by playwright-core); screenshots go to test-artifacts/.
    {
      ...base,
      displayName: 'browser',
      testMatch: grouped ? groups('test/browser', '.browser.test.ts', 'all.browser.group.ts', 0) : ['<rootDir>/test/browser/**/*.browser.test.ts'],
    },
    { ...base, displayName: 'fuzz', testMatch: ['<rootDir>/test/fuzz/**/*.fuzz.test.ts'] },
    { ...base, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.fault.test.ts'] },
    { ...base, displayName: 'topology', testMatch: ['<rootDir>/test/topology/**/*.test.ts'] },
  ],
};
