export * from './public';
export { route, routes } from './authed';
export { binary } from './responses';
