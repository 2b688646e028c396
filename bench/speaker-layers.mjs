// `node bench/speaker-layers.mjs`: runs bench/speaker-layers.ts through Vite's module runner (no build step, no tsx).
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./speaker-layers.ts', import.meta.url).pathname);
await module.main(process.argv.slice(2));
