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
  '**/export/*',
  '**/reports/*',
  '**/config',
  '**/log',
];

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
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      // Nothing imports from functions/ (docs/ARCHITECTURE.md: dependency direction).
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/functions/*'], message: 'functions/ is a leaf: import from shared/ instead' }] },
      ],
    },
  },
  {
    // shared/report is the pure domain: no AWS, no middy, no HTTP, nothing else of ours.
    files: ['shared/report/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: awsOrHttp, message: 'shared/report is pure: no AWS, HTTP or storage imports' }] },
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
  },
);
