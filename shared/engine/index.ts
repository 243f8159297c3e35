/** The report engine's public surface: read a WB detailed report, aggregate, derive, total, combine. */
export * from './fields';
export * from './types';
export * from './errors';
export * from './row-sink';
export * from './money';
export * from './classify';
export * from './aggregate';
export * from './derive';
export * from './build';
export * from './totals';
export * from './combine';
export * from './allocation';
export * from './periods';
export * from './identity';
export * from './fingerprint';
export { readReport, countRows, fingerprintReport, type ReadHooks } from './read-report';
export { scanReport, parseFileMeta, detectFormat } from './read';
export type { ReportSource, ReadLimits } from './read';
