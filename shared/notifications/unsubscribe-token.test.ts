import { describe, expect, it } from 'vitest';
import { signUnsubscribe, verifyUnsubscribe } from './unsubscribe-token';

const KEY = 'unsubscribe:test-secret-of-sixteen+';

describe('the unsubscribe token', () => {
  it('names its user and kind under the key it was signed with', () => {
    const t = signUnsubscribe(KEY, '01USER', 'digest');
    expect(verifyUnsubscribe(KEY, t)).toEqual({ userId: '01USER', kind: 'digest' });
  });
  it('refuses another key, a changed user, a changed signature, garbage', () => {
    const t = signUnsubscribe(KEY, '01USER', 'digest');
    expect(verifyUnsubscribe(`${KEY}x`, t)).toBeNull();
    const [, sig] = t.split('.');
    const other = Buffer.from('01OTHER:digest').toString('base64url');
    expect(verifyUnsubscribe(KEY, `${other}.${sig}`)).toBeNull();
    expect(verifyUnsubscribe(KEY, `${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(verifyUnsubscribe(KEY, 'not-a-token')).toBeNull();
  });
});
