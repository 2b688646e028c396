// `npm run bench`: runs the TypeScript runner through Vite's module runner (no build step, no tsx).
// Two imports: the options first (they set STS_EVAL_DIR), then the runner, whose config/ imports read it.
import { runnerImport } from 'vite';

const here = (path) => new URL(path, import.meta.url).pathname;
const { module: cli } = await runnerImport(here('./bench-cli.ts'));
const options = cli.parseOptions(process.argv.slice(2));
if (typeof options === 'number') process.exit(options);
const { module: runner } = await runnerImport(here('./lib/bench-run.ts'));
process.exit(await runner.runBench(options));
