export * from './summary';
export * from './compute';
export * from './report-identity';
