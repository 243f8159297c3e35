import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The web app is a static bundle. In development Vite serves it and proxies /api to the local API
// (scripts/start.ts runs `vite --config web/vite.config.ts`), so the page and the API share an origin.
// A CloudFront build points the page at the API with VITE_API_BASE (read in src/api/client.ts).
const webRoot = fileURLToPath(new URL('.', import.meta.url));
const apiUrl = process.env.API_URL || 'http://localhost:3000';
const port = Number(process.env.WEB_PORT || 5173);

export default defineConfig({
  root: webRoot,
  plugins: [react()],
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
    proxy: {
      '/api': { target: apiUrl, changeOrigin: true },
    },
  },
});
