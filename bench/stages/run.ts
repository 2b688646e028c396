/**
 * `node bench/stages.mjs [--model whisper-tiny,whisper-base] [--sets eval,dev] [--json FILE]`: issue 31's
 * stage-by-stage table. From plain reference decoding (the parity check's pass: one greedy pass over a
 * full 30 s window, which equals transformers.js's tokens on 107 of 109 clips) to the engine's default,
 * one stage of our pipeline is added per row, and each row's WER is scored on the parity clips (English,
 * at most 30 s, ../shared/eval/en and ../shared/dev/en, never holdout; clips without a reference are
 * skipped). Runs in Node, one thread: the reference rows through the decoder directly, the rest through
 * the worker's Engine (bench/lib/node-engine.ts).
 */
import { writeFileSync } from 'node:fs';
import { ROOT } from '../../config/paths';
import { decodeWindow, isSilence } from '../../engine/decoding/fallback';
import { SAMPLE_RATE, type Decoding, type EncoderWindow, type EngineRequest, type ModelName } from '../../engine/protocol';
import { SileroVad, VAD_MODEL_PATH } from '../../engine/vad/silero';
import { decodingWindows, speechRegions } from '../../engine/vad/windows';
import { FULL_FRAMES, logMelSpectrogram } from '../../engine/whisper/features';
import type { Generation } from '../../engine/whisper/generate';
import type { EncodedWindow, WhisperModel } from '../../engine/whisper/model';
import { parseRunnerOptions, splitList } from '../lib/args';
import { startNodeEngine, type NodeEngine } from '../lib/node-engine';
import { loadNodeWhisper, modelFolder, nodeOrt, readAudio } from '../bias-set/node-model';
import { parityClips, PARITY_SETS, type ParitySet } from '../parity/clips';
import { createScorer, errorRate, type ClipErrors } from '../score/error-rate';
import { loadSpellings } from '../score/spellings';
import { formatTable } from '../lib/table';

export const STAGES_USAGE = 'node bench/stages.mjs [--model whisper-tiny,whisper-base] [--sets eval,dev] [--rows 0,1,2,3,4,5,3b,3c,5c] [--json FILE]';

interface Tools {
  whisper: WhisperModel;
  vad: SileroVad;
  engine: NodeEngine;
}

interface Row {
  stage: string;
  /** The row's transcript of one clip. */
  run(tools: Tools, audio: Float32Array): Promise<string>;
}

/** Text of a generation as the engine reads it: its text tokens, nothing for a window judged silent. */
function textOf(whisper: WhisperModel, gen: Generation, dropSilence: boolean): string {
  if (dropSilence && isSilence(gen)) return '';
  return whisper.vocab.decode(gen.tokens.map((t) => t.id)).trim();
}

/** One full window over the clip's first 30 s, as the reference decodes it. */
async function firstWindow(whisper: WhisperModel, audio: Float32Array, decode: (encoded: EncodedWindow) => Promise<string>) {
  const encoded = await whisper.encode(logMelSpectrogram(audio.subarray(0, 30 * SAMPLE_RATE), FULL_FRAMES), FULL_FRAMES);
  try {
    return await decode(encoded);
  } finally {
    whisper.releaseWindow(encoded);
  }
}

const engineRow = (stage: string, encoderWindow: EncoderWindow, decoding: Decoding, request: Partial<EngineRequest> = {}): Row => ({
  stage,
  async run({ engine }, audio) {
    const result = await engine.transcribe(audio, { encoderWindow, decoding }, request);
    return result.segments.map((s) => s.text).join(' ');
  },
});

/** The ladder, in order; each row adds one stage to the row above (3b, 3c and 5c branch off rows 3 and 5). */
export const ROWS: readonly Row[] = [
  {
    stage: '0 reference: greedy, one full window from 0 s, no fallback',
    run: ({ whisper }, audio) =>
      firstWindow(whisper, audio, async (encoded) => textOf(whisper, await whisper.generate(encoded, { language: 'en', temperature: 0, wantAttention: false, audioSeconds: Math.min(30, audio.length / SAMPLE_RATE) }), false)),
  },
  {
    stage: "1 + Whisper's temperature fallback and no-speech check",
    run: ({ whisper }, audio) =>
      firstWindow(whisper, audio, async (encoded) => textOf(whisper, await decodeWindow(whisper, encoded, { language: 'en', wantAttention: false, audioSeconds: Math.min(30, audio.length / SAMPLE_RATE) }), true)),
  },
  {
    stage: '2 + VAD windows (edges, padding, long pauses cut), full encoder window each',
    async run({ whisper, vad }, audio) {
      const probs = await vad.probabilities(audio);
      const texts: string[] = [];
      for (const w of decodingWindows(speechRegions(probs, { totalSamples: audio.length }), probs, audio.length)) {
        const samples = audio.subarray(w.startSample, w.endSample);
        const encoded = await whisper.encode(logMelSpectrogram(samples, FULL_FRAMES), FULL_FRAMES);
        try {
          texts.push(textOf(whisper, await decodeWindow(whisper, encoded, { language: 'en', wantAttention: false, audioSeconds: samples.length / SAMPLE_RATE }), true));
        } finally {
          whisper.releaseWindow(encoded);
        }
      }
      return texts.join(' ');
    },
  },
  engineRow("3 + seek (a closed window's unheard rest decoded): the engine, full windows, greedy", 'full', 'fast'),
  engineRow('4 + fitted encoder windows (greedy)', 'fit', 'fast'),
  engineRow('5 + 5 beams (fitted windows)', 'fit', 'accurate'),
  engineRow('3b row 3 + 5 beams (full windows)', 'full', 'accurate'),
  engineRow('3c row 3, language not given (language planning)', 'full', 'fast', { languages: null }),
  engineRow('5c row 5, language not given (language planning)', 'fit', 'accurate', { languages: null }),
];

export async function runStages(argv: readonly string[]): Promise<number> {
  const options = parseRunnerOptions(argv, ['model', 'sets', 'rows', 'json'], STAGES_USAGE);
  if (typeof options === 'number') return options;
  const models = splitList(options.get('model') ?? 'whisper-tiny,whisper-base') as ModelName[];
  const sets = splitList(options.get('sets') ?? 'eval,dev');
  for (const s of sets) if (!(s in PARITY_SETS)) throw new Error(`--sets: unknown set ${s} (known: ${Object.keys(PARITY_SETS).join(', ')})`);
  const labels = options.has('rows') ? splitList(options.get('rows')!) : null;
  const rows = labels ? ROWS.filter((r) => labels.includes(r.stage.split(' ')[0]!)) : ROWS;
  if (rows.length === 0) throw new Error(`--rows: none of ${labels!.join(', ')} (labels: ${ROWS.map((r) => r.stage.split(' ')[0]).join(', ')})`);
  const clips = sets.flatMap((s) => parityClips(s as ParitySet)).filter((c) => c.clip.text !== null);
  const scorer = createScorer(loadSpellings(ROOT));
  const transcripts: Record<string, Record<string, string[]>> = {};
  for (const model of models) {
    const ort = nodeOrt();
    // rows 0-2 on the export's own integer arithmetic, as the reference (row 0) decodes; the engine rows use the engine's
    const whisper = await loadNodeWhisper(model, { floatArithmetic: [] });
    const vad = await SileroVad.create(ort, new Uint8Array(await modelFolder().bytes(VAD_MODEL_PATH)));
    const engine = await startNodeEngine(model);
    const tools = { whisper, vad, engine };
    const byRow: Record<string, string[]> = (transcripts[model] = {});
    const errors = rows.map(() => new Map<string, ClipErrors[]>());
    for (const [i, { set, clip, path }] of clips.entries()) {
      const audio = readAudio(path);
      for (const [r, row] of rows.entries()) {
        const text = await row.run(tools, audio);
        (byRow[row.stage] ??= []).push(text);
        const score = scorer.score(clip.text!, text, 'en');
        for (const key of [set, 'all']) errors[r]!.set(key, [...(errors[r]!.get(key) ?? []), score]);
      }
      console.error(`${model} ${i + 1}/${clips.length} ${set}/${clip.file}`);
    }
    if (options.has('json')) writeFileSync(options.get('json')!, JSON.stringify({ clips: clips.map((c) => `${c.set}/${c.clip.file}`), transcripts }, null, 1));
    const keys = [...sets, 'all'];
    const cell = (list: ClipErrors[] | undefined) => {
      const edits = (list ?? []).reduce((a, c) => a + c.edits, 0);
      const words = (list ?? []).reduce((a, c) => a + c.referenceLength, 0);
      return `${(100 * errorRate(list ?? [])).toFixed(1)}% (${edits}/${words})`;
    };
    console.log(`${model}, ${clips.length} clips`);
    console.log(formatTable(['stage', ...keys.map((k) => `WER ${k}`)], rows.map((row, r) => [row.stage, ...keys.map((k) => cell(errors[r]!.get(k)))])));
    await engine.close();
    await whisper.release();
    await vad.release();
  }
  return 0;
}
