// @ts-check
/**
 * Lint: typescript-eslint's type-checked rules over src/, and rules that encode the layers (docs/architecture.md):
 *
 *   http → domain → data        adapters implement the domain's ports        shared and config depend on nothing
 *
 * - src/domain knows no HTTP, no adapters and no entry points;
 * - src/data knows no domain, HTTP or adapters;
 * - src/http reaches the database only through the domain, except the audit log of its own exchanges, the request
 *   pipeline and the parser's refusals (which commit every request with its audit row) and the probes (which read
 *   the service's health);
 * - web/ talks to the service over HTTP only: its modules import each other, never server code.
 * The layers hold only if no import comes back: scripts/import-cycles.js (run by `npm run lint` after this) refuses
 * import cycles in src/, of files and of the domain's aggregate folders (src/domain/<aggregate>/), and any import of
 * an aggregate by src/domain/kernel, the words the aggregates share (money, Sri Lanka time, the vehicle catalogue,
 * seats, the booking's states and the ride's rules).
 * Formatting is prettier's (npm run format:check), so no stylistic rules here.
 */
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

const layer = (group, message) => ({ 'no-restricted-imports': ['error', { patterns: [{ group, message }] }] });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/generated/**', 'test-artifacts/**', 'coverage/**', '.ci-cache/**', 'data/**', '**/*.d.ts'] },
  {
    files: ['src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'always'],
      // Handlers implement async signatures (the surface awaits every operation); many answer without awaiting.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: layer(
      ['**/http/**', '**/http', '**/adapters/**', '**/cli/**', '../**/server', '../**/launch', 'express'],
      'The domain knows no HTTP, adapters or entry points: take what you need as a port.',
    ),
  },
  {
    files: ['src/data/**/*.ts'],
    rules: layer(['**/domain/**', '**/http/**', '**/adapters/**', '**/cli/**'], 'src/data is the bottom layer: it knows no domain, HTTP or adapters.'),
  },
  {
    files: ['src/shared/**/*.ts', 'src/config/**/*.ts'],
    rules: layer(['**/domain/**', '**/http/**', '**/adapters/**', '**/data/**', '**/cli/**'], 'shared and config depend on nothing of the service.'),
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: layer(['**/http/**', '**/cli/**'], "Adapters implement the domain's ports; they know no HTTP surface."),
  },
  {
    files: ['src/http/**/*.ts'],
    ignores: ['src/http/pipeline.ts', 'src/http/client-error.ts', 'src/http/probes.ts'],
    rules: layer(
      ['**/data/repositories/**', '!**/data/repositories/audit-repository', '!**/data/repositories/audit-reads', '**/data/knex', '**/adapters/**'],
      'HTTP maps requests to use cases: reach the database through src/domain (the audit log of HTTP exchanges aside).',
    ),
  },
  {
    // Tests, benchmarks, simulators and migrations: the recommended rules, without type information (fast).
    files: ['test/**/*.ts', 'bench/**/*.ts', 'simulators/**/*.ts', 'harness/**/*.ts', 'migrations/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Tests read answers as a client does, as untyped JSON.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['scripts/**/*.js', 'test/**/*.js', '*.js', '.ci/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
  },
  {
    files: ['web/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
    rules: layer(['../../*', '../../**', '**/src/**'], 'web/ talks to the service over HTTP only.'),
  },
  // A file past 300 lines is split by what it does (issue 29); the generated types are ignored above.
  { files: ['src/**/*.ts', 'web/**/*.js'], rules: { 'max-lines': ['error', { max: 300 }] } },
  prettier,
);
