import { secret } from '../secrets';

/** The key unsubscribe links are signed with: derived from the signing secret (unsubscribe-token.ts). */
export const unsubscribeKey = (): string => `unsubscribe:${secret('jwt')}`;
