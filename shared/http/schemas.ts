/** zod schemas of inputs several routes share: they live in the contract (shared/contract/shapes.ts). */
export { emailSchema, taxProfileSchema, taxProfilePatchSchema, cursorQuerySchema, VAT_RATES } from '../contract/shapes';
