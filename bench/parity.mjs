// `node bench/parity.mjs`: our decoder against transformers.js, token by token (bench/parity/run.ts),
// through Vite's module runner like the other bench commands.
import { runnerImport } from 'vite';

const { module: parity } = await runnerImport(new URL('./parity/run.ts', import.meta.url).pathname);
process.exit(await parity.runParity(process.argv.slice(2)));
