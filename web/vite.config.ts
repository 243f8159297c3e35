import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { contentSecurityPolicy } from './src/lib/csp';

// The web app is a static bundle. In development Vite serves it and proxies /api to the local API
// (scripts/start.ts runs `vite --config web/vite.config.ts`), so the page and the API share an origin.
// A CloudFront build points the page at the API with VITE_API_BASE (read in src/api/client.ts).
const webRoot = fileURLToPath(new URL('.', import.meta.url));
const apiUrl = process.env.API_URL || 'http://localhost:3000';
const port = Number(process.env.WEB_PORT || 5173);

// Content-Security-Policy (src/lib/csp.ts): in the built index.html as a <meta>, and as a header from
// `vite preview`. Presigned uploads go to the bucket: VITE_UPLOAD_ORIGINS (space-separated), else any
// S3 endpoint of the region in VITE_AWS_REGION, else of any region; locally S3_PUBLIC_ENDPOINT.
// The dev server sends none: React's fast refresh needs an inline script there.
const uploadOrigins = [
  ...(process.env.VITE_UPLOAD_ORIGINS?.split(/\s+/).filter(Boolean) ??
    (process.env.VITE_AWS_REGION
      ? [`https://*.s3.${process.env.VITE_AWS_REGION}.amazonaws.com`]
      : ['https://*.s3.amazonaws.com', 'https://*.amazonaws.com'])),
  ...(process.env.S3_PUBLIC_ENDPOINT ? [process.env.S3_PUBLIC_ENDPOINT] : []),
];
const csp = contentSecurityPolicy({ apiBase: process.env.VITE_API_BASE, uploadOrigins });

const cspPlugin = (): Plugin => ({
  name: 'content-security-policy',
  apply: 'build',
  transformIndexHtml: () => [
    { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: csp }, injectTo: 'head-prepend' },
  ],
});

export default defineConfig({
  root: webRoot,
  plugins: [react(), cspPlugin()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
  },
  server: {
    host: '127.0.0.1',
    port,
    strictPort: true,
    proxy: {
      '/api': { target: apiUrl, changeOrigin: true },
    },
  },
  preview: {
    host: '127.0.0.1',
    port,
    strictPort: true,
    headers: {
      'Content-Security-Policy': `${csp}; frame-ancestors 'none'`,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
    },
    proxy: {
      '/api': { target: apiUrl, changeOrigin: true },
    },
  },
});
