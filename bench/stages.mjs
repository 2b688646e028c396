// `node bench/stages.mjs`: issue 31's stage-by-stage WER table (bench/stages/run.ts), through Vite's
// module runner like the other bench commands. The run happens inside the import: the engine imports
// modules dynamically, which a closed runner can no longer serve.
import { runnerImport } from 'vite';

const { module: stages } = await runnerImport(new URL('./stages/main.ts', import.meta.url).pathname);
process.exit(stages.exitCode);
