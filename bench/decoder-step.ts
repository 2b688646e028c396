/**
 * `node bench/decoder-step.mjs`: the time of one decoder run in Node (onnxruntime-web's wasm build, one
 * thread unless `--threads`), by rows (1: greedy, 5: beams) and with or without logits, after a cache of
 * `--cached` tokens over a full 30 s window of ../shared/eval/en/jfk.flac (STS_EVAL_DIR). A microbenchmark
 * of the graph patches (engine/whisper/patches.ts): it isolates the decoder from the browser, the VAD and
 * the encoder.
 * The 30 s encoder pass is timed too (median of 3), so `--threads 1` and `--threads 2` show which of the
 * two a second thread speeds up.
 */
import { parseRunnerOptions } from './lib/args';
import { loadNodeWhisper, readAudio } from './bias-set/node-model';
import { EVAL_DIR } from '../config/paths';
import { FULL_FRAMES, logMelSpectrogram } from '../engine/whisper/features';
import { argmax } from '../engine/whisper/generate';
import { beamLayout } from '../engine/whisper/model';
import { LOGITS_WEIGHTS, type LogitsWeight } from '../engine/whisper/patches';

const USAGE = `node bench/decoder-step.mjs [--model whisper-base] [--logits-weight float|int8|export] [--cached 63] [--runs 30] [--threads 1]
  Prints ms per decoder run for 1 and 5 rows, with and without logits (a run computing no logits row),
  and ms per encoder pass over a 30 s window, on --threads WASM threads.`;

export async function runDecoderStep(argv: string[]): Promise<number> {
  const options = parseRunnerOptions(argv, ['model', 'logits-weight', 'cached', 'runs', 'threads'], USAGE);
  if (typeof options === 'number') return options;
  const weight = options.get('logits-weight');
  if (weight !== undefined && !(LOGITS_WEIGHTS as readonly string[]).includes(weight)) throw new Error(`--logits-weight: ${weight} is not one of ${LOGITS_WEIGHTS.join(', ')}`);
  const threads = Number(options.get('threads') ?? 1);
  if (!(Number.isInteger(threads) && threads >= 1)) throw new Error(`--threads: ${options.get('threads')} is not a positive integer`);
  const model = await loadNodeWhisper(options.get('model') ?? 'whisper-base', weight ? { logitsWeight: weight as LogitsWeight } : {}, threads);
  const audio = readAudio(`${EVAL_DIR}/en/jfk.flac`);
  const mel = logMelSpectrogram(audio, FULL_FRAMES);
  const encoderMs: number[] = [];
  let encoded = await model.encode(mel, FULL_FRAMES);
  for (let i = 0; i < 3; i++) {
    model.releaseWindow(encoded);
    const began = performance.now();
    encoded = await model.encode(mel, FULL_FRAMES);
    encoderMs.push(performance.now() - began);
  }
  const start = await model.startAfter(encoded, { language: 'en' }, Array(Number(options.get('cached') ?? 63)).fill(model.vocab.encode(' the')[0]!));
  const runs = Number(options.get('runs') ?? 30);
  console.log(`${options.get('model') ?? 'whisper-base'} (logits weight ${options.get('logits-weight') ?? 'as the engine holds it'}), ${threads} thread(s): encoder pass over 30 s ${encoderMs.sort((a, b) => a - b)[1]!.toFixed(0)} ms; decoder, ${start.cache.length} cached positions, ms per run over ${runs} runs`);
  for (const rows of [1, 5]) {
    for (const logits of [true, false]) {
      const ids = Array(rows).fill(argmax(start.row));
      const layout = beamLayout(start.cache.length, start.cache.length, Array.from({ length: rows }, () => []));
      let ms = 0;
      for (let i = -3; i < runs; i++) {
        const began = performance.now();
        const out = await model.decoderForward(ids, start.cache, encoded, { layout, logitsFrom: logits ? 0 : rows });
        if (i >= 0) ms += performance.now() - began;
        out.logits.dispose();
        out.cache.release();
      }
      console.log(`  rows ${rows}, ${logits ? 'with' : 'without'} logits: ${(ms / runs).toFixed(1)} ms`);
    }
  }
  start.cache.release();
  model.releaseWindow(encoded);
  return 0;
}
