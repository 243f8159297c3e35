/**
 * The web app's Content-Security-Policy (issue 12, defense in depth). Pure: vite.config.ts puts it in
 * the built index.html as a <meta> and sends it as a header from `vite preview`.
 *
 * - scripts: only the bundle's own files ('self'); no inline script, no eval;
 * - connections: the page's own origin (the /api proxy or a CloudFront /api/* behaviour), the API's
 *   origin when the build points elsewhere (VITE_API_BASE), and where presigned uploads go (the S3
 *   bucket's origin: big reports are PUT straight to storage);
 * - styles: the bundle's CSS file; React's `style={…}` props are set through the DOM, which CSP allows;
 * - images: own files and the data: favicon; no plugins, no <base>, forms post only to the page.
 * frame-ancestors cannot be set from a <meta>: CloudFront adds it as a header (README, Deploy).
 */
export interface CspInput {
  /** VITE_API_BASE: the API's URL when it is not served from the page's origin. */
  apiBase?: string;
  /** Origins presigned uploads are PUT to (the S3 bucket's, e.g. https://*.s3.eu-central-1.amazonaws.com). */
  uploadOrigins?: readonly string[];
}

/** scheme://host[:port] of an absolute http(s) URL; null for anything else (relative paths, junk). */
export function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

export function contentSecurityPolicy(input: CspInput = {}): string {
  const connect = new Set<string>(["'self'"]);
  const api = originOf(input.apiBase);
  if (api) connect.add(api);
  for (const o of input.uploadOrigins ?? []) {
    // Host wildcards (https://*.s3.…) are kept as given; anything else must be an origin.
    const origin = /^https:\/\/\*\.[a-z0-9.-]+$/i.test(o) ? o : originOf(o);
    if (origin) connect.add(origin);
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${[...connect].join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}
