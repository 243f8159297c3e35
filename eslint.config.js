// @ts-check
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

const awsOrHttp = [
  '@aws-sdk/*',
  '@middy/*',
  'aws-lambda',
  'exceljs',
  '**/http',
  '**/http/*',
  '**/store/*',
  '**/files/*',
  '**/mail/*',
  '**/jobs/*',
  '**/workbooks/*',
  '**/reports/*',
  '**/config',
  '**/log',
];

// Layer rules (issue 11; docs/ARCHITECTURE.md). In flat config a later block replaces a rule's options for
// the files it matches, so each block lists every pattern that applies to its files.
const noFunctions = { group: ['**/functions/*'], message: 'functions/ is a leaf: import from shared/ instead' };
const noS3 = {
  group: ['@aws-sdk/client-s3', '@aws-sdk/s3-request-presigner', '**/files/client'],
  message: 'S3 access lives in shared/files (objects.ts): call its functions',
};
const noAwsOrHttp = {
  group: ['@aws-sdk/*', '@middy/*', 'aws-lambda', '**/http', '**/http/*', '**/files/client'],
  message:
    'use cases are free of AWS and HTTP: use shared/files, shared/store, shared/mail; answers are built in functions/',
};
const storeLimits = {
  group: ['**/http', '**/http/*', '**/auth', '**/auth/*'],
  message: 'stores throw domain errors (shared/errors.ts) and know nothing of HTTP or auth',
};
const webLimits = {
  group: [
    '**/shared/**',
    '!**/shared/engine',
    '!**/shared/engine/index',
    '!**/shared/engine/fields',
    '!**/shared/engine/payout',
    '!**/shared/engine/totals',
    '!**/shared/engine/months',
    '!**/shared/engine/target-price',
    '!**/shared/contract',
    '!**/shared/contract/**',
  ],
  message:
    "web/ imports only the engine's public surface (shared/engine; its pure fields, payout lines, totals, month names and the price for a margin) and shared/contract",
};
const noStoreInHandlers = {
  group: ['**/store/*'],
  message:
    'a handler calls a use case (shared/<feature>/…) with the deps its composition module wires; it imports no store',
};
const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

module.exports = tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.serverless/**',
      '.esbuild/**',
      '.data/**',
      'web/dist/**',
      'dist/**',
      'test-artifacts/**',
      '.cache/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type-aware: an unawaited write is lost when a Lambda returns; a promise where a callback
    // expects void hides its rejection.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      // Nothing imports from functions/ (docs/ARCHITECTURE.md: dependency direction).
      ...restrict(noFunctions),
    },
  },
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/files/**'],
    rules: restrict(noFunctions, noS3),
  },
  {
    // Handlers are thin (docs/ARCHITECTURE.md "Adding a route"): they reach stores only through a use case
    // and the composition module (*deps.ts) that wires it, never a store itself.
    files: ['functions/**/*.ts'],
    ignores: ['functions/**/*.test.ts'],
    rules: restrict(noFunctions, noS3, noStoreInHandlers),
  },
  {
    // Use cases: no AWS SDK, no middy, no HTTP (their adapters are shared/store, shared/files, shared/mail).
    files: [
      'shared/reports/**/*.ts',
      'shared/auth/**/*.ts',
      'shared/catalog/**/*.ts',
      'shared/engine/analytics/**/*.ts',
      'shared/jobs/registry.ts',
      'shared/workbooks/**/*.ts',
      'shared/marketplaces/wb/sync/**/*.ts',
      'shared/costs/**/*.ts',
      'shared/pnl/**/*.ts',
    ],
    rules: restrict(noFunctions, noAwsOrHttp),
  },
  {
    files: ['shared/store/**/*.ts'],
    rules: restrict(noFunctions, noS3, storeLimits),
  },
  {
    // Use cases that take their stores and files as ports (`deps`, docs/ARCHITECTURE.md): their types
    // only; the handler, or a composition module (*deps.ts), wires the real ones.
    files: [
      'shared/reports/queries.ts',
      'shared/reports/worker/{report-settings,recover,give-up,catalog-sync}.ts',
      'shared/reports/analytics/{analytics,analytics-export}.ts',
      'shared/reports/combine/{combined-stale,list-stale}.ts',
      'shared/reports/upload/{upload,file-input,duplicates}.ts',
      'shared/reports/rebuild/rebuild.ts',
      'shared/catalog/import.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/store/*.repo', '**/files/*'],
              allowTypeImports: true,
              message: 'a use case takes its stores and files as deps: import their types only',
            },
          ],
        },
      ],
    },
  },
  {
    // shared/engine is the pure domain: no AWS, no middy, no HTTP, nothing else of ours.
    files: ['shared/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: awsOrHttp, message: 'shared/engine is pure: no AWS, HTTP or storage imports' }] },
      ],
    },
  },
  {
    // Tests drive handlers in-process (docs/API.md routes with hand-built events); production code may not.
    files: ['test/**/*.ts', 'functions/**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: restrict(noFunctions, webLimits),
  },
);
