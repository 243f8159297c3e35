import { defineConfig } from 'vitest/config';

// Four suites with their own commands (docs/ARCHITECTURE.md: unit and integration are separate projects).
// scripts/test.ts runs them in order and prints the CI summary line.

/**
 * The settings every suite runs with (the product's own settings, nothing that names the test runner):
 * each answer checked against its contract schema (shared/http/responses.ts), logs at ERROR and no EMF
 * metric lines (Powertools' own POWERTOOLS_METRICS_DISABLED), so test output stays readable. The stacks
 * the e2e and browser suites start inherit them.
 */
const env = { CONTRACT_CHECK: '1', POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true' };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['shared/**/*.test.ts', 'functions/**/*.test.ts', 'scripts/**/*.test.ts'],
          environment: 'node',
          env,
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'web',
          include: ['web/src/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          env,
          testTimeout: 30_000,
        },
        esbuild: { jsx: 'automatic' },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          env,
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/in-process-worker.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        // Regressions of the attack run (issue 12): emulators, handlers in-process, hostile inputs.
        test: {
          name: 'security',
          include: ['test/security/**/*.test.ts'],
          environment: 'node',
          env,
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/in-process-worker.setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          env,
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          env,
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
