import { parseRunnerOptions } from './lib/args';

const USAGE = `npm run bench [-- --out FILE --threads N[,N] --clips PATTERN --model NAME[,NAME] --side ours|peer --data DIR --timeout S --decoding fast|accurate --encoder-window fit|full]
  Runs this library and transformers.js side by side (same q8 model files, same headless Chromium,
  same thread count, same clips) and prints WER, RTF, model load time and peak renderer memory.
  --clips   comma-separated globs over folder/file (default: en/* with language=en, plus
            long/wts_radio_short_fr.mp3 with language=fr)
  --threads WASM threads, a list runs each (default: 1,2)
  --model   whisper-tiny, whisper-base and/or whisper-small (default: whisper-tiny,whisper-base)
  --side    run one side only (default: both)
  --timeout seconds per clip (default: 60 + 4 x the clip's duration)
  --decoding this library's decoding: fast (greedy) or accurate (5 beams) (default: its choice per model);
            the peer decodes greedily, as transformers.js does by default
  --encoder-window this library's encoder input: fit (the window's audio and some silence) or full (30 s)
            (default: its choice per model); the peer always encodes 30 s`;

/** Parsed options (and STS_EVAL_DIR set from --data), or the exit code when there is nothing to run. */
export function parseOptions(argv: string[]): Map<string, string> | number {
  return parseRunnerOptions(argv, ['out', 'threads', 'clips', 'model', 'side', 'data', 'timeout', 'decoding', 'encoder-window'], USAGE);
}
