/**
 * Tokens of the local WB emulator: JWT-shaped like WB's (ES256 header, WB's claims: exp, s, oid, sid, acc),
 * with a random signature. The emulator accepts exactly the tokens it issued — the way WB, which alone can
 * check the signature, accepts only its own.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { scopeMask } from '../../../shared/marketplaces/wb/token';

export interface EmulatorTokenClaims {
  oid: number;
  scopes: readonly string[];
  /** Seconds since the epoch. */
  exp: number;
  acc?: number;
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

export function makeEmulatorToken(c: EmulatorTokenClaims): string {
  const header = { alg: 'ES256', kid: 'emulator-v1', typ: 'JWT' };
  const claims = {
    acc: c.acc ?? 3,
    ent: 1,
    exp: c.exp,
    for: 'self',
    id: randomUUID(),
    iid: 100000001,
    oid: c.oid,
    s: scopeMask(c.scopes),
    sid: randomUUID(),
    t: false,
    uid: 100000002,
  };
  return `${b64(header)}.${b64(claims)}.${randomBytes(48).toString('base64url')}`;
}
