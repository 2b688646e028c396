// `node scripts/fit-speaker-count.mjs`: runs scripts/fit-speaker-count.ts through Vite's module runner.
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./fit-speaker-count.ts', import.meta.url).pathname);
await module.main(process.argv.slice(2));
