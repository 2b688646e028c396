import { useEvalDir } from './eval-dir';

/** `--name value` / `--name=value` / `--flag` command-line options, nothing more. */
export function parseArgs(argv: readonly string[], known: readonly string[], flags: readonly string[] = []): Map<string, string> {
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument: ${arg}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (flags.includes(name)) {
      options.set(name, 'true');
      continue;
    }
    if (!known.includes(name)) throw new Error(`unknown option --${name} (known: ${[...known, ...flags].map((k) => `--${k}`).join(' ')})`);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new Error(`--${name} needs a value`);
    options.set(name, value);
  }
  return options;
}

/** "a,b, c" -> ["a", "b", "c"]. */
export const splitList = (value: string): string[] =>
  value.split(',').map((s) => s.trim()).filter((s) => s !== '');

/**
 * A runner's options with --help and usage errors handled: the options, or the exit code when there is
 * nothing to run (0 after --help, 2 after a usage error). Sets STS_EVAL_DIR from --data.
 */
export function parseRunnerOptions(argv: readonly string[], known: readonly string[], usage: string, flags: readonly string[] = []): Map<string, string> | number {
  let options: Map<string, string>;
  try {
    options = parseArgs(argv, known, ['help', ...flags]);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (options.has('help')) {
    console.log(usage);
    return 0;
  }
  useEvalDir(options.get('data'));
  return options;
}
