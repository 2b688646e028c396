// `node bench/vad-frames.mjs`: Silero VAD one run a frame against 32 frames a run (bench/vad-frames.ts),
// through Vite's module runner like the other bench commands.
import { runnerImport } from 'vite';

const { module } = await runnerImport(new URL('./vad-frames.ts', import.meta.url).pathname);
process.exit(await module.runVadFrames(process.argv.slice(2)));
