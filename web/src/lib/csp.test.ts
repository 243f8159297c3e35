import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, originOf } from './csp';

const directive = (csp: string, name: string) =>
  csp
    .split(';')
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `));

describe('content security policy', () => {
  it('allows no inline script or eval, no plugins, no <base>', () => {
    const csp = contentSecurityPolicy();
    expect(directive(csp, 'script-src')).toBe("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*(?!\.)/);
    expect(directive(csp, 'object-src')).toBe("object-src 'none'");
    expect(directive(csp, 'base-uri')).toBe("base-uri 'none'");
  });

  it('connects only to the page, the API origin and the upload origins', () => {
    const csp = contentSecurityPolicy({
      apiBase: 'https://abc123.execute-api.eu-central-1.amazonaws.com/api',
      uploadOrigins: ['https://*.s3.eu-central-1.amazonaws.com', 'http://localhost:4569/bucket', 'javascript:alert(1)'],
    });
    expect(directive(csp, 'connect-src')).toBe(
      "connect-src 'self' https://abc123.execute-api.eu-central-1.amazonaws.com https://*.s3.eu-central-1.amazonaws.com http://localhost:4569",
    );
    expect(directive(contentSecurityPolicy({ apiBase: '/api' }), 'connect-src')).toBe("connect-src 'self'");
  });

  it('origins: only absolute http(s) URLs have one', () => {
    expect(originOf('https://x.example.org:8443/a?b')).toBe('https://x.example.org:8443');
    expect(originOf('/api')).toBeNull();
    expect(originOf('data:text/html,hi')).toBeNull();
    expect(originOf(undefined)).toBeNull();
  });
});
