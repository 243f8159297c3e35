export { handler } from '../not-implemented.handler';
