import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Built by Quinoa into the jar (dist/ -> META-INF/resources). In `quarkus dev` Quinoa proxies
// the UI to this dev server and Quarkus itself answers /api and /q.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
  },
  server: {
    port: 5173,
    strictPort: true,
  },
});
