/** @type {import('jest').Config} */
const path = require('node:path');
const root = path.resolve(__dirname, '..');
// ESM-only transitive deps (msw 2.15: rettime, until-async, @open-draft; pact 16.5: https-proxy-agent,
// agent-base, proxy-agent-negotiate) are transpiled, since jest runs CommonJS here.
const esmOnly = ['marked', 'rettime', 'until-async', '@open-draft', 'https-proxy-agent', 'agent-base', 'proxy-agent-negotiate'];
const base = {
  rootDir: root,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(root, 'tsconfig.json') }],
    '^.+\\.m?js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } }],
  },
  // Also when nested (pact keeps its own https-proxy-agent@9 and agent-base@9 while openapi-typescript hoists @7).
  transformIgnorePatterns: [`/node_modules/(?!(?:.*/node_modules/)?(${esmOnly.join('|')})/)`],
};
module.exports = {
  rootDir: root,
  testTimeout: 60000,
  globalSetup: '<rootDir>/test/global-setup.js',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.unit.test.ts'] },
    { ...base, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.int.test.ts'] },
    // Pact runs in its own projects, with no msw or nock loaded: consumers write contracts/pacts, verifiers read them.
    { ...base, displayName: 'contract-consumer', testMatch: ['<rootDir>/test/contract/**/*.pact.test.ts'] },
    { ...base, displayName: 'contract-verify', testMatch: ['<rootDir>/test/contract/**/*.verify.test.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'] },
    // Pages in headless Chromium (Debian's, driven by playwright-core); screenshots go to test-artifacts/.
    { ...base, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.browser.test.ts'] },
    { ...base, displayName: 'fuzz', testMatch: ['<rootDir>/test/fuzz/**/*.fuzz.test.ts'] },
    { ...base, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.fault.test.ts'] },
  ],
};
