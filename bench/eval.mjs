// `npm run eval`: runs the TypeScript runner through Vite's module runner (no build step, no tsx).
// Two imports: the options first (they set STS_EVAL_DIR), then the runner, whose config/ imports read it.
import { runnerImport } from 'vite';

const here = (path) => new URL(path, import.meta.url).pathname;
// `npm run eval -- --bias [...]`: the biasing report (bench/bias-set/eval-bias.mjs), not the folder eval.
if (process.argv.includes('--bias')) {
  const { module: args } = await runnerImport(here('./lib/args.ts'));
  const { BIAS_USAGE, runBiasEval } = await import('./bias-set/eval-bias.mjs');
  const argv = process.argv.slice(2).filter((a) => a !== '--bias');
  const options = args.parseRunnerOptions(argv, ['model', 'voices', 'strengths', 'en', 'set', 'half'], BIAS_USAGE, ['one-window']);
  process.exit(typeof options === 'number' ? options : runBiasEval(options));
}
// `npm run eval -- --report [...]`: issue 31's table of both libraries per set and model (bench/report.ts).
if (process.argv.includes('--report')) {
  const { module: args } = await runnerImport(here('./lib/args.ts'));
  const { module: report } = await runnerImport(here('./report.ts'));
  const argv = process.argv.slice(2).filter((a) => a !== '--report');
  const options = args.parseRunnerOptions(argv, ['sets', 'model', 'clips', 'threads', 'out'], report.REPORT_USAGE);
  process.exit(typeof options === 'number' ? options : report.runReport(options));
}
const { module: cli } = await runnerImport(here('./eval-cli.ts'));
const options = cli.parseOptions(process.argv.slice(2));
if (typeof options === 'number') process.exit(options);
const { module: runner } = await runnerImport(here('./lib/eval-run.ts'));
process.exit(await runner.runEval(options));
