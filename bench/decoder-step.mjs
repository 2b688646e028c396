// `node bench/decoder-step.mjs`: one decoder run's time by rows and logits (bench/decoder-step.ts),
// through Vite's module runner like the other bench commands.
import { runnerImport } from 'vite';

const { module: step } = await runnerImport(new URL('./decoder-step.ts', import.meta.url).pathname);
process.exit(await step.runDecoderStep(process.argv.slice(2)));
