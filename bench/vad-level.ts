/**
 * `node bench/vad-level.mjs`: the VAD's input level (engine/vad/level.ts) measured with and without it, in
 * Node (onnxruntime-web's wasm build, one thread), on the development split only:
 * - speech detection against the reference turns of ../shared/dev/diar and ../shared/eval/diar (the
 *   engine's speech regions without their padding, scored in 10 ms steps: missed and false speech over
 *   the reference speech time);
 * - speech frames (probability at or above the onset threshold) of ../shared/dev/en's first 30 exact
 *   clips played 0 to 50 dB quieter;
 * - speech frames in 30 s of uniform noise at three levels.
 * `--sweep` also scores detection for each setting of LEVEL_SWEEP, one changed at a time.
 */
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { DEV_DIR, EVAL_DIR, ROOT } from '../config/paths';
import { LEVEL_DEFAULTS, type LevelOptions } from '../engine/vad/level';
import { SileroVad, VAD_MODEL_PATH } from '../engine/vad/silero';
import { SPEECH_REGION_DEFAULTS, speechRegions } from '../engine/vad/windows';
import { readAudio } from './bias-set/node-model';
import { parseRunnerOptions } from './lib/args';
import { isExactReference, loadClips } from './lib/manifest';
import { parseRttm } from './score/der';

const USAGE = 'node bench/vad-level.mjs [--sweep]';
const STEP = 160; // 10 ms
const LEVEL_SWEEP: Partial<LevelOptions>[] = [
  { targetPeak: 0.25 },
  { targetPeak: 0.9 },
  { releaseSeconds: 3 },
  { releaseSeconds: 30 },
  { maxGain: 30 },
  { maxGain: 1000 },
];

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

export async function runVadLevel(argv: string[]): Promise<number> {
  const options = parseRunnerOptions(argv, [], USAGE, ['sweep']);
  if (typeof options === 'number') return options;
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const model = new Uint8Array(readFileSync(join(ROOT, 'public/models', VAD_MODEL_PATH)));
  const vadWith = (level: Partial<LevelOptions> | null) => SileroVad.create(ort, model, undefined, level);
  const settings: [string, Partial<LevelOptions> | null][] = [
    ['no level', null],
    ['level (defaults)', {}],
    ...(options.has('sweep') ? LEVEL_SWEEP.map((s): [string, Partial<LevelOptions>] => [JSON.stringify(s), s]) : []),
  ];

  const meetings = [join(DEV_DIR, 'diar'), join(EVAL_DIR, 'diar')].flatMap((dir) =>
    existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.rttm')).map((f) => ({ dir, name: f.replace(/\.rttm$/, '') })) : [],
  );
  const references = meetings.map(({ dir, name }) => {
    const audio = readAudio(join(dir, `${name}.wav`));
    const speech = new Uint8Array(Math.ceil(audio.length / STEP));
    for (const t of parseRttm(readFileSync(join(dir, `${name}.rttm`), 'utf8'))) speech.fill(1, Math.floor((t.start * 16000) / STEP), Math.ceil((t.end * 16000) / STEP));
    return { name, audio, speech };
  });
  console.log(`Speech detection against the reference turns (${references.map((r) => r.name).join(', ')}):`);
  for (const [label, level] of settings) {
    const vad = await vadWith(level);
    let [missed, falseAlarm, total] = [0, 0, 0];
    for (const { audio, speech } of references) {
      const regions = speechRegions(await vad.probabilities(audio), { totalSamples: audio.length, padBeforeMs: 0, padAfterMs: 0 });
      const heard = new Uint8Array(speech.length);
      for (const r of regions) heard.fill(1, Math.floor(r.startSample / STEP), Math.ceil(r.endSample / STEP));
      speech.forEach((s, i) => {
        total += s;
        if (s && !heard[i]) missed++;
        if (!s && heard[i]) falseAlarm++;
      });
    }
    console.log(`  ${label.padEnd(26)} missed ${percent(missed, total)}, false alarm ${percent(falseAlarm, total)} of ${(total / 100).toFixed(1)} s`);
    await vad.release();
  }

  const clips = loadClips(DEV_DIR, ['en']).filter((c) => c.text !== null && isExactReference(c)).slice(0, 30);
  const audios = clips.map((c) => readAudio(join(DEV_DIR, c.folder, c.file)));
  const gainsDb = [0, -20, -30, -40, -50];
  console.log(`\nSpeech frames of ${clips.length} dev/en clips played quieter (${gainsDb.join(', ')} dB):`);
  for (const [label, level] of settings.slice(0, 2)) {
    const vad = await vadWith(level);
    const counts: number[] = [];
    for (const db of gainsDb) {
      let frames = 0;
      for (const audio of audios) {
        const probs = await vad.probabilities(audio.map((x) => x * 10 ** (db / 20)));
        frames += probs.filter((p) => p >= SPEECH_REGION_DEFAULTS.onsetThreshold).length;
      }
      counts.push(frames);
    }
    console.log(`  ${label.padEnd(26)} ${counts.join(' / ')}`);
    let seed = 1;
    const noise = (amplitude: number) =>
      Float32Array.from({ length: 30 * 16000 }, () => {
        seed = (seed * 16807) % 2147483647;
        return amplitude * ((2 * seed) / 2147483647 - 1);
      });
    const found: number[] = [];
    for (const amplitude of [0.001, 0.01, 0.1]) {
      found.push((await vad.probabilities(noise(amplitude))).filter((p) => p >= SPEECH_REGION_DEFAULTS.onsetThreshold).length);
    }
    console.log(`  ${''.padEnd(26)} speech frames in 30 s of uniform noise at amplitude 0.001 / 0.01 / 0.1: ${found.join(' / ')}`);
    await vad.release();
  }
  console.log(`\nLevel defaults: ${JSON.stringify(LEVEL_DEFAULTS)}`);
  return 0;
}
