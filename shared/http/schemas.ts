/** zod schemas of inputs several routes share: part of the contract (shared/contract/inputs.ts). */
export * from '../contract/inputs';
