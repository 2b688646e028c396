// Scores bench/webgpu results: node bench/webgpu/score.mjs [--common] FILE.jsonl...
// (STS_EVAL_DIR or ../shared gives the manifests.) Runs the TypeScript through Vite's module runner.
import { runnerImport } from 'vite';
import { resolve } from 'node:path';

const argv = process.argv.slice(2);
const common = argv.includes('--common');
const files = argv.filter((a) => a !== '--common').map((f) => resolve(f));
const { module } = await runnerImport(new URL('./score.ts', import.meta.url).pathname);
console.log(module.scoreResults(files, process.env.STS_EVAL_DIR ?? resolve('../shared'), common));
