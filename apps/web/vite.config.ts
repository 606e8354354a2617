import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development (`npm run dev -w @us/web`) API calls go to the server on :8080.
export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { '/trpc': 'http://127.0.0.1:8080', '/v1': 'http://127.0.0.1:8080' },
  },
  build: { outDir: 'dist', emptyOutDir: true },
});
