import { resolve } from 'node:path';

/**
 * Decides which evaluation set to use and exports it as STS_EVAL_DIR, which config/paths reads
 * when first imported: call this before anything imports config/ (the server, the scorer).
 * --data is relative to where npm was invoked; STS_EVAL_DIR, as in config/paths, to the repository.
 */
export function useEvalDir(dataOption: string | undefined): string {
  const root = resolve(import.meta.dirname, '../..');
  const dir = dataOption
    ? resolve(process.env.INIT_CWD ?? process.cwd(), dataOption)
    : resolve(root, process.env.STS_EVAL_DIR ?? '../shared/eval');
  process.env.STS_EVAL_DIR = dir;
  return dir;
}
