/**
 * Diarization measurements in node, on the real whisper-base encoder (cut after block 2) and Silero VAD:
 * - ../shared/eval/diar: DER (collar 0.25 and 0, overlapping speech scored) with our own VAD regions
 *   and with oracle regions (the RTTM's speech), auto count and max_speakers = the true count;
 *   speaker-count accuracy with no max_speakers (the three-speaker clip included);
 * - ../shared/speakers/librispeech_test-other: verification EER over all pairs, whole utterances
 *   and 1.5-3 s crops; count accuracy on its packed 30 s windows (1-3 speakers each).
 * Windows are cut as the engine cuts them (transcription VAD settings, full 30 s encoder input).
 * Run: node bench/diarization.mjs [--diar-only] [--test-windows N]   (hidden states are cached in tmp/speaker-cache)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVAL_DIR } from '../config/paths';
import { decodingWindows, speechRegions, type SpeechRegion } from '../worker/segment-speech';
import { decodeSpeakerConstants, type SpeakerConstants, type SpeakerConstantsFile } from '../worker/speakers/constants';
import { SpeakerDiarizer, diarizationRegions, type DiarizerOptions } from '../worker/speakers/diarize';
import { embedSpan, SAMPLES_PER_POSITION, type HiddenWindow } from '../worker/speakers/embed';
import type { SpeakerTurn } from '../worker/speakers/turns';
import { testWindows } from '../scripts/fit-speaker-windows';
import { loadWindows, POSITIONS, DIMS, type LabelledWindow } from '../scripts/fit-speaker-model';
import { seeded } from '../worker/seeded-random';
import { formatTable, percent } from './lib/table';
import { diarizationError, parseRttm, type Turn } from './score/der';
import { decodeFile, vadProbabilities, windowHidden } from './speaker-features';

const SR = 16_000;

interface DiarClip {
  name: string;
  audio: Float32Array;
  speakers: number;
  /** Null for the clip that has only speaker-attributed text. */
  reference: Turn[] | null;
}

export function diarClips(): DiarClip[] {
  const manifest = JSON.parse(readFileSync(join(EVAL_DIR, 'diar/manifest.json'), 'utf8')) as Array<{ file: string; rttm: string | null; num_speakers: number }>;
  return manifest.map((m) => ({
    name: m.file.replace(/\.\w+$/, ''),
    audio: decodeFile(join(EVAL_DIR, 'diar', m.file)),
    speakers: m.num_speakers,
    reference: m.rttm ? parseRttm(readFileSync(join(EVAL_DIR, 'diar', m.rttm), 'utf8')) : null,
  }));
}

/** Speech of the reference (union of turns), as sample regions. */
function oracleRegions(ref: readonly Turn[]): SpeechRegion[] {
  const spans = ref.map((t) => [Math.round(t.start * SR), Math.round(t.end * SR)] as const).sort((a, b) => a[0] - b[0]);
  const out: SpeechRegion[] = [];
  for (const [s, e] of spans) {
    const last = out[out.length - 1];
    if (last && s <= last.endSample) last.endSample = Math.max(last.endSample, e);
    else out.push({ startSample: s, endSample: e });
  }
  return out;
}

/** Runs diarization over a clip the way the engine would: its transcription windows, one encoder run each. */
export async function diarizeClip(
  c: SpeakerConstants,
  audio: Float32Array,
  regions: readonly SpeechRegion[],
  maxSpeakers: number | null,
  options: Partial<DiarizerOptions> = {},
): Promise<SpeakerTurn[]> {
  const probs = await vadProbabilities(audio);
  const windows = decodingWindows(speechRegions(probs, { totalSamples: audio.length }), probs, audio.length);
  const diarizer = new SpeakerDiarizer(c, regions, options);
  for (const w of windows) {
    const hidden = await windowHidden(audio.subarray(w.startSample, w.endSample));
    diarizer.addWindow(hidden, POSITIONS, w.startSample);
  }
  return diarizer.finish(maxSpeakers);
}

const asTurns = (turns: readonly SpeakerTurn[]): Turn[] => turns.map((t) => ({ speaker: String(t.speaker), start: t.startMs / 1000, end: t.endMs / 1000 }));
const speakerCount = (turns: readonly SpeakerTurn[]): number => new Set(turns.map((t) => t.speaker)).size;

export interface DiarRow {
  clip: string;
  regions: 'vad' | 'oracle';
  bound: number | null;
  der25: number | null;
  der0: number | null;
  missed: number | null;
  fa: number | null;
  conf: number | null;
  found: number;
  truth: number;
}

export async function evalDiar(c: SpeakerConstants, clips: readonly DiarClip[], options: Partial<DiarizerOptions> = {}, vadOptions = {}): Promise<DiarRow[]> {
  const rows: DiarRow[] = [];
  for (const clip of clips) {
    const probs = await vadProbabilities(clip.audio);
    const vad = diarizationRegions(probs, clip.audio.length, vadOptions);
    const modes: Array<['vad' | 'oracle', SpeechRegion[]]> = [['vad', vad]];
    if (clip.reference) modes.push(['oracle', oracleRegions(clip.reference)]);
    for (const [mode, regions] of modes) {
      for (const bound of [null, clip.speakers]) {
        const turns = await diarizeClip(c, clip.audio, regions, bound, options);
        const to = clip.audio.length / SR;
        const r25 = clip.reference ? diarizationError(clip.reference, asTurns(turns), { collar: 0.25, from: 0, to }) : null;
        const r0 = clip.reference ? diarizationError(clip.reference, asTurns(turns), { collar: 0, from: 0, to }) : null;
        rows.push({
          clip: clip.name,
          regions: mode,
          bound,
          der25: r25?.der ?? null,
          der0: r0?.der ?? null,
          missed: r25 ? r25.missed / r25.reference : null,
          fa: r25 ? r25.falseAlarm / r25.reference : null,
          conf: r25 ? r25.confusion / r25.reference : null,
          found: speakerCount(turns),
          truth: clip.speakers,
        });
      }
    }
  }
  return rows;
}

/** Pooled DER over clips: total error over total reference time. Computed per clip, so weight by reference. */
export function summarise(rows: readonly DiarRow[], regions: 'vad' | 'oracle', bounded: boolean): { der25: number; der0: number; countAcc: number; n: number } {
  const sel = rows.filter((r) => r.regions === regions && (r.bound !== null) === bounded);
  const scored = sel.filter((r) => r.der25 !== null);
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return {
    der25: mean(scored.map((r) => r.der25!)),
    der0: mean(scored.map((r) => r.der0!)),
    countAcc: mean(sel.map((r) => (r.found === r.truth ? 1 : 0))),
    n: sel.length,
  };
}

/** Equal error rate of same-speaker vs different-speaker cosine scores. */
export function equalErrorRate(same: number[], diff: number[]): number {
  const all = [...same.map((s) => [s, 1] as const), ...diff.map((s) => [s, 0] as const)].sort((a, b) => b[0] - a[0]);
  let tp = 0;
  let fp = 0;
  let best = 1;
  for (const [, label] of all) {
    if (label) tp++;
    else fp++;
    const frr = 1 - tp / same.length;
    const far = fp / diff.length;
    best = Math.min(best, Math.max(frr, far));
  }
  return best;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** EER on the packed test-other windows: whole utterances, then one seeded 1.5-3 s crop of each. */
export function verification(c: SpeakerConstants, windows: readonly LabelledWindow[]): { utterance: number; crop: number } {
  const rand = seeded(7);
  const whole: Array<{ speaker: string; v: Float32Array }> = [];
  const crops: Array<{ speaker: string; v: Float32Array }> = [];
  for (const w of windows) {
    const hw: HiddenWindow = { hidden: w.hidden, positions: POSITIONS, dims: DIMS, startSample: 0 };
    for (const { speaker, regions } of w.speech) {
      if (regions.length === 0) continue;
      // pooled over all speech positions of the utterance: average of per-region pools weighted by length
      const start = regions[0]!.startSample;
      const end = regions[regions.length - 1]!.endSample;
      whole.push({ speaker, v: embedSpan(hw, start, end, c) });
      const len = Math.round((1.5 + 1.5 * rand()) * SR);
      const from = start + Math.floor(rand() * Math.max(0, end - start - len));
      crops.push({ speaker, v: embedSpan(hw, from, Math.min(end, from + len), c) });
    }
  }
  const eer = (xs: typeof whole): number => {
    const same: number[] = [];
    const diff: number[] = [];
    for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) (xs[i]!.speaker === xs[j]!.speaker ? same : diff).push(cosine(xs[i]!.v, xs[j]!.v));
    return equalErrorRate(same, diff);
  };
  return { utterance: eer(whole), crop: eer(crops) };
}

/** Count accuracy with no max_speakers on the packed test-other windows (speech regions from VAD). */
export function packedCountAccuracy(c: SpeakerConstants, windows: readonly LabelledWindow[], options: Partial<DiarizerOptions> = {}): { acc: number; n: number; confusion: Map<string, number> } {
  let right = 0;
  const confusion = new Map<string, number>();
  for (const w of windows) {
    const regions = w.speech.flatMap((s) => s.regions);
    const d = new SpeakerDiarizer(c, regions, options);
    d.addWindow(w.hidden, POSITIONS, 0);
    const found = speakerCount(d.finish(null));
    const truth = new Set(w.speech.map((s) => s.speaker)).size;
    if (found === truth) right++;
    const key = `${truth}->${found}`;
    confusion.set(key, (confusion.get(key) ?? 0) + 1);
  }
  return { acc: right / windows.length, n: windows.length, confusion };
}

export function loadShippedConstants(): SpeakerConstants {
  const file = JSON.parse(readFileSync(join(import.meta.dirname, '../worker/speakers/speaker-constants.json'), 'utf8')) as SpeakerConstantsFile;
  return decodeSpeakerConstants(file);
}

export function diarTable(rows: readonly DiarRow[]): string {
  const n = (x: number | null): string => (x === null ? '-' : percent(x));
  return formatTable(
    ['clip', 'regions', 'max_speakers', 'DER c0.25', 'DER c0', 'miss', 'FA', 'conf', 'speakers'],
    rows.map((r) => [r.clip, r.regions, r.bound === null ? 'auto' : String(r.bound), n(r.der25), n(r.der0), n(r.missed), n(r.fa), n(r.conf), `${r.found}/${r.truth}`]),
  );
}

export async function main(args: string[] = []): Promise<void> {
  const c = loadShippedConstants();
  const rows = await evalDiar(c, diarClips());
  console.log(diarTable(rows));
  console.log();
  const lines: string[][] = [];
  for (const regions of ['vad', 'oracle'] as const) {
    for (const bounded of [false, true]) {
      const s = summarise(rows, regions, bounded);
      lines.push([regions, bounded ? 'true count' : 'auto', percent(s.der25), percent(s.der0), `${percent(s.countAcc)} of ${s.n}`]);
    }
  }
  console.log(formatTable(['regions', 'max_speakers', 'mean DER c0.25', 'mean DER c0', 'count right'], lines));
  if (args.includes('--diar-only')) return;
  const limit = args.indexOf('--test-windows');
  const test = await loadWindows(testWindows(limit >= 0 ? Number(args[limit + 1]) : Infinity));
  const eer = verification(c, test);
  const count = packedCountAccuracy(c, test);
  console.log();
  console.log(`librispeech test-other EER: whole utterances ${percent(eer.utterance)}, 1.5-3 s crops ${percent(eer.crop)}`);
  console.log(`count right on ${count.n} packed test-other windows (no max_speakers): ${percent(count.acc)}  ${[...count.confusion].map(([k, v]) => `${k}:${v}`).join(' ')}`);
}
