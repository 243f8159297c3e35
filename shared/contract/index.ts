/** The one contract of the API (shapes, routes, error codes); imported by the server and the web page alike. */
export * from './errors';
export * from './shapes';
export * from './routes';
export * from './pnl-shapes';
export * from './cashflow-shapes';
export * from './unit-economics-shapes';
