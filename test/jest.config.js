/** @type {import('jest').Config} */
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '..');

// Grouped, the integration phase runs `test/integration/<folder>/all.int.group.ts` files only: a test file anywhere
// else, or a folder without its group file, would silently not run. Refuse to start instead.
function integrationGroups() {
  const dir = path.join(root, 'test/integration');
  const lost = [];
  const walk = (folder, depth) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(file, depth + 1);
      else if (entry.name.endsWith('.int.test.ts') && (depth !== 1 || !fs.existsSync(path.join(folder, 'all.int.group.ts'))))
        lost.push(path.relative(root, file));
    }
  };
  walk(dir, 0);
  if (lost.length)
    throw new Error(`not in any group (test/support/grouped.ts): ${lost.join(', ')}: move them into a folder of test/integration/ that has all.int.group.ts`);
  return ['<rootDir>/test/integration/*/all.int.group.ts'];
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
    // TEST_GROUPED=true (scripts/test.js sets it): each folder's files as one test file, sharing one module registry
    // (test/support/grouped.ts); otherwise file by file, as when a file is named on the command line.
    {
      ...base,
      displayName: 'integration',
      testMatch: process.env.TEST_GROUPED === 'true' ? integrationGroups() : ['<rootDir>/test/integration/**/*.int.test.ts'],
    },
    // Pact runs in its own projects, with no msw or nock loaded: consumers write contracts/pacts, verifiers read them.
    { ...base, displayName: 'contract-consumer', testMatch: ['<rootDir>/test/contract/**/*.pact.test.ts'] },
    { ...base, displayName: 'contract-verify', testMatch: ['<rootDir>/test/contract/**/*.verify.test.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'] },
    // Pages in headless Chromium (Debian's, driven by playwright-core); screenshots go to test-artifacts/.
    { ...base, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.browser.test.ts'] },
    { ...base, displayName: 'fuzz', testMatch: ['<rootDir>/test/fuzz/**/*.fuzz.test.ts'] },
    { ...base, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.fault.test.ts'] },
    { ...base, displayName: 'topology', testMatch: ['<rootDir>/test/topology/**/*.test.ts'] },
  ],
};
