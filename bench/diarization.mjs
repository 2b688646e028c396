// `node bench/diarization.mjs`: runs bench/diarization-eval.ts through Vite's module runner (no build step, no tsx).
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./diarization-eval.ts', import.meta.url).pathname);
await module.main(process.argv.slice(2));
