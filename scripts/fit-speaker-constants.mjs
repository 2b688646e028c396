// Runs scripts/fit-speaker-model.ts through Vite's module runner (no build step, no tsx).
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./fit-speaker-model.ts', import.meta.url).pathname);
await module.main(process.argv.slice(2));
