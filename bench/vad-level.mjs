// `node bench/vad-level.mjs`: the VAD's input level measured with and without it (bench/vad-level.ts),
// through Vite's module runner like the other bench commands.
import { runnerImport } from 'vite';

const { module: level } = await runnerImport(new URL('./vad-level.ts', import.meta.url).pathname);
process.exit(await level.runVadLevel(process.argv.slice(2)));
