/**
 * Which encoder block's output (whisper-base by default, or --model) makes the best speaker features (issue 32: "choose the
 * feature layer by verification EER on ../shared/speakers and by DER on the development meetings").
 * For each block, in one encoder run per window:
 *   1. the per-position mean and PCA whitening are fitted on packed train-clean-100 windows, as
 *      scripts/fit-speaker-model.ts fits the shipped constants (here with the full per-position mean);
 *   2. on ../shared/dev and ../shared/eval diar (engine windows, own VAD, no max_speakers): the
 *      diarizer's pooled DER and right count, and the within-recording AUC of same- against
 *      different-speaker piece similarities (pieces held at least 80% by one reference speaker);
 *   3. verification EER on packed test-other windows: whole utterances and 1.5 s crops.
 * Run: node bench/speaker-layers.mjs [--model whisper-tiny] [--windows N (train, default 80)] [--test-windows N (default 40)] [--layers 0,1,2,3,4,5]
 * (0-based block indices; `0+1` is blocks 1 and 2 concatenated per position)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { ROOT } from '../config/paths';
import { encoderInFloats } from '../engine/pipeline';
import type { ModelName } from '../engine/protocol';
import { FULL_FRAMES, logMelSpectrogram, N_MELS } from '../engine/whisper/features';
import type { SpeakerConstants, SpeakerEncoder } from '../engine/speakers/constants';
import { cutEncoder } from '../engine/speakers/features';
import { diarizationRegions, evidenceRegions, SpeakerDiarizer } from '../engine/speakers/diarize';
import { EMBEDDING_DEFAULTS, SAMPLES_PER_POSITION, embedSpan, heardWindow, tileSpan, windowEmbeddings, type HiddenWindow } from '../engine/speakers/embed';
import { decodingWindows, speechRegions, type SpeechRegion } from '../engine/vad/windows';
import { fitWhitening, meanFromSums } from '../scripts/fit-speaker-model';
import { testWindows, trainWindows } from '../scripts/fit-speaker-windows';
import { cosine, diarClips, verificationEer } from './diarization-eval';
import { formatTable, percent } from './lib/table';
import { diarizationError, type Turn } from './score/der';
import { vadProbabilities } from './speaker-features';

const P = 1500;
const OUT_DIMS = 128;
const SR = 16_000;

function option(args: readonly string[], name: string, fallback: string): string {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1]! : fallback;
}

/**
 * The encoder cut after the deepest block asked for: per feature (a list of blocks), those blocks'
 * outputs side by side at each position ([P × channels·blocks]).
 */
async function featureOutputs(model: string, blockDims: number, heads: number, features: readonly (readonly number[])[]): Promise<(audio: Float32Array) => Promise<Float32Array[]>> {
  ort.env.wasm.numThreads = 1;
  const blocks = [...new Set(features.flat())];
  const names = blocks.map((b) => `/layers.${b}/Add_1_output_0`);
  const bytes = new Uint8Array(readFileSync(join(ROOT, `public/models/${model}/onnx/encoder_model_quantized.onnx`)));
  // the arithmetic the engine runs this model's encoder in on WASM
  const { model: patched, externalData } = cutEncoder(bytes, names, heads, encoderInFloats(model as ModelName));
  const session = await ort.InferenceSession.create(patched, { executionProviders: ['wasm'], externalData });
  return async (audio) => {
    const out = await session.run({ input_features: new ort.Tensor('float32', logMelSpectrogram(audio, FULL_FRAMES), [1, N_MELS, FULL_FRAMES]) });
    const of = (b: number) => out[names[blocks.indexOf(b)]!]!.data as Float32Array;
    return features.map((f) => {
      if (f.length === 1) return of(f[0]!).slice();
      const joined = new Float32Array(P * blockDims * f.length);
      for (let p = 0; p < P; p++) f.forEach((b, k) => joined.set(of(b).subarray(p * blockDims, (p + 1) * blockDims), (p * f.length + k) * blockDims));
      return joined;
    });
  };
}

/** Per block, the constants fitted on `windows` packed train-clean-100 windows (one encoder run each). */
async function fitConstants(encoder: SpeakerEncoder, hidden: (audio: Float32Array) => Promise<Float32Array[]>, dims: readonly number[], windows: number): Promise<SpeakerConstants[]> {
  const piece = EMBEDDING_DEFAULTS.subWindowMs * 16;
  const hop = EMBEDDING_DEFAULTS.hopMs * 16;
  const min = EMBEDDING_DEFAULTS.minMs * 16;
  const sums = dims.map((D) => new Float64Array(P * D));
  const counts = new Float64Array(P);
  // each piece's raw mean per block: the per-position mean is subtracted once it is known (pooling is linear)
  const pieces: Array<{ first: number; last: number; raw: Float64Array[] }> = [];
  for (const w of trainWindows(windows)) {
    const hs = await hidden(w.audio);
    for (const u of w.utterances) {
      const regions = diarizationRegions(await vadProbabilities(u.audio), u.audio.length).map((r) => ({ startSample: r.startSample + u.offset, endSample: r.endSample + u.offset }));
      for (const r of regions) {
        const end = Math.min(P, Math.floor(r.endSample / SAMPLES_PER_POSITION));
        for (let p = Math.ceil(r.startSample / SAMPLES_PER_POSITION); p < end; p++) {
          counts[p]!++;
          hs.forEach((h, b) => {
            const D = dims[b]!;
            for (let d = 0; d < D; d++) sums[b]![p * D + d]! += h[p * D + d]!;
          });
        }
        if (r.endSample - r.startSample < min) continue;
        for (const [s, e] of tileSpan(r.startSample, r.endSample, piece, hop)) {
          const first = Math.floor(s / SAMPLES_PER_POSITION);
          const last = Math.min(P, Math.ceil(e / SAMPLES_PER_POSITION));
          pieces.push({ first, last, raw: hs.map((h, b) => meanRows(h, dims[b]!, first, last)) });
        }
      }
    }
  }
  return sums.map((sum, b) => {
    const D = dims[b]!;
    const positionMean = meanFromSums(sum, counts, D);
    const xs = pieces.map((pc) => {
      const meanOver = meanRows(positionMean, D, pc.first, pc.last);
      return pc.raw[b]!.map((x, d) => x - meanOver[d]!);
    });
    const w = fitWhitening(xs, OUT_DIMS);
    const projection = new Float32Array(OUT_DIMS * D);
    w.vectors.forEach((v, k) => v.forEach((x, d) => (projection[k * D + d] = x * w.scales[k]!)));
    return { encoder, positions: P, dims: D, outDims: OUT_DIMS, positionMean, center: Float32Array.from(w.center), projection };
  });
}

function meanRows(rows: Float32Array, D: number, first: number, last: number): Float64Array {
  const out = new Float64Array(D);
  for (let p = first; p < last; p++) for (let d = 0; d < D; d++) out[d]! += rows[p * D + d]! / (last - first);
  return out;
}

/** The reference speaker holding at least 80% of [s, e) while no other holds over 20%, else null. */
function soleSpeaker(reference: readonly Turn[], s: number, e: number): string | null {
  const [a, b] = [s / SR, e / SR];
  const held = new Map<string, number>();
  for (const t of reference) {
    const overlap = Math.min(b, t.end) - Math.max(a, t.start);
    if (overlap > 0) held.set(t.speaker, (held.get(t.speaker) ?? 0) + overlap);
  }
  const [first, second] = [...held].sort((x, y) => y[1] - x[1]);
  return first && first[1] >= 0.8 * (b - a) && !(second && second[1] > 0.2 * (b - a)) ? first[0] : null;
}

/** AUC of same- over different-speaker cosines of recording-centred pieces that do not overlap in time. */
function withinRecordingAuc(pieces: ReadonlyArray<{ startSample: number; endSample: number; vector: Float32Array }>, reference: readonly Turn[]): number | null {
  if (pieces.length < 2) return null;
  const mean = new Float32Array(pieces[0]!.vector.length);
  for (const p of pieces) p.vector.forEach((x, d) => (mean[d]! += x / pieces.length));
  const vs = pieces.map((p) => {
    const v = p.vector.map((x, d) => x - mean[d]!);
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  });
  const who = pieces.map((p) => soleSpeaker(reference, p.startSample, p.endSample));
  const same: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    for (let j = i + 1; j < pieces.length; j++) {
      if (!who[i] || !who[j] || pieces[j]!.startSample < pieces[i]!.endSample) continue;
      (who[i] === who[j] ? same : diff).push(cosine(vs[i]!, vs[j]!));
    }
  }
  if (same.length === 0 || diff.length === 0) return null;
  let wins = 0;
  for (const s of same) for (const d of diff) wins += s > d ? 1 : s === d ? 0.5 : 0;
  return wins / (same.length * diff.length);
}

export async function main(args: string[] = []): Promise<void> {
  const blocks = option(args, '--layers', '0,1,2,3,4,5').split(',').map((f) => f.split('+').map(Number));
  const model = option(args, '--model', 'whisper-base');
  const config = JSON.parse(readFileSync(join(ROOT, `public/models/${model}/config.json`), 'utf8')) as { d_model: number; encoder_attention_heads: number };
  const blockDims = config.d_model;
  const hidden = await featureOutputs(model, blockDims, config.encoder_attention_heads, blocks);
  const constants = await fitConstants(model as SpeakerEncoder, hidden, blocks.map((f) => f.length * blockDims), Number(option(args, '--windows', '80')));
  const meetings = blocks.map(() => ({ err25: 0, ref25: 0, err0: 0, ref0: 0, right: 0, clips: 0, aucs: [] as number[] }));
  for (const clip of ['../shared/dev', '../shared/eval'].flatMap((root) => diarClips(root))) {
    const probs = await vadProbabilities(clip.audio);
    const regions = diarizationRegions(probs, clip.audio.length);
    const evidence: SpeechRegion[] = evidenceRegions(probs, clip.audio.length);
    const diarizers = constants.map((c) => new SpeakerDiarizer(c, regions, {}, evidence));
    const pieces = blocks.map(() => [] as ReturnType<typeof windowEmbeddings>);
    for (const w of decodingWindows(speechRegions(probs, { totalSamples: clip.audio.length }), probs, clip.audio.length)) {
      (await hidden(clip.audio.subarray(w.startSample, w.endSample))).forEach((h, b) => {
        diarizers[b]!.addWindow(h, P, w.startSample, w.endSample);
        pieces[b]!.push(...windowEmbeddings(heardWindow(h, P, constants[b]!.dims, w.startSample, w.endSample), evidence, constants[b]!));
      });
    }
    blocks.forEach((_, b) => {
      const m = meetings[b]!;
      const turns = diarizers[b]!.finish(null);
      m.clips++;
      if (new Set(turns.map((t) => t.speaker)).size === clip.speakers) m.right++;
      if (!clip.reference) return;
      const hyp = turns.map((t) => ({ speaker: String(t.speaker), start: t.startMs / 1000, end: t.endMs / 1000 }));
      const to = clip.audio.length / SR;
      const [r25, r0] = [0.25, 0].map((collar) => diarizationError(clip.reference!, hyp, { collar, from: 0, to }));
      m.err25 += r25!.der * r25!.reference;
      m.ref25 += r25!.reference;
      m.err0 += r0!.der * r0!.reference;
      m.ref0 += r0!.reference;
      const auc = withinRecordingAuc(pieces[b]!, clip.reference);
      if (auc !== null) m.aucs.push(auc);
    });
  }
  const verify = blocks.map(() => ({ whole: [] as Array<{ speaker: string; v: Float32Array }>, crops: [] as Array<{ speaker: string; v: Float32Array }> }));
  for (const w of testWindows(Number(option(args, '--test-windows', '40')))) {
    const hs = await hidden(w.audio);
    for (const u of w.utterances) {
      const regions = diarizationRegions(await vadProbabilities(u.audio), u.audio.length);
      if (regions.length === 0) continue;
      const [s, e] = [regions[0]!.startSample + u.offset, regions[regions.length - 1]!.endSample + u.offset];
      const crop = Math.max(s, Math.floor((s + e) / 2 - 0.75 * SR));
      hs.forEach((h, b) => {
        const hw: HiddenWindow = { hidden: h, positions: P, dims: constants[b]!.dims, startSample: 0 };
        verify[b]!.whole.push({ speaker: u.speaker, v: embedSpan(hw, s, e, constants[b]!) });
        verify[b]!.crops.push({ speaker: u.speaker, v: embedSpan(hw, crop, Math.min(e, crop + 1.5 * SR), constants[b]!) });
      });
    }
  }
  const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  console.log(
    formatTable(
      ['block', 'DER c0.25', 'DER c0', 'right count', 'within-recording AUC', 'EER whole', 'EER 1.5 s'],
      blocks.map((feature, b) => {
        const m = meetings[b]!;
        return [feature.map((x) => x + 1).join('+'), percent(m.err25 / m.ref25), percent(m.err0 / m.ref0), `${m.right} of ${m.clips}`, `${mean(m.aucs)?.toFixed(3) ?? '-'} (${m.aucs.length} clips)`, percent(verificationEer(verify[b]!.whole)), percent(verificationEer(verify[b]!.crops))];
      }),
    ),
  );
}
