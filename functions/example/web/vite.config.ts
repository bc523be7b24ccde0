import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import packageJson from '../../../package.json' with { type: 'json' }

// The page imports the package by its own name (`a2-aws/ai/react`): point
// each entry point at its source, as vitest.config.ts does.
const selfReferences = Object.entries(packageJson.exports)
  .filter(([, target]) => typeof target === 'object' && 'a2-source' in target)
  .map(([entry, target]) => ({
    find: new RegExp(`^a2-aws${entry.slice(1).replace(/[/.]/g, '\\$&')}$`),
    replacement: fileURLToPath(
      new URL(`../../../${(target as { 'a2-source': string })['a2-source']}`, import.meta.url),
    ),
  }))

/** The example chat page: `npm run build:web` writes it to ./dist for `npm start`. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  resolve: { conditions: ['a2-source'], alias: selfReferences },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    // React and the markdown renderer change less often than the page: their
    // own chunks stay cached across deploys, and none passes Vite's 500 kB warning.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            { name: 'vendor', test: /node_modules/ },
          ],
        },
      },
    },
  },
  logLevel: 'warn',
})
