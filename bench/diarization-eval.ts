/**
 * Diarization measurements in node, on the real whisper-base encoder (cut after block 2) and Silero VAD:
 * - ../shared/eval/diar: DER (collar 0.25 and 0, overlapping speech scored) with our own VAD regions
 *   and with oracle regions (the RTTM's speech), auto count and max_speakers = the true count;
 *   speaker-count accuracy with no max_speakers (the three-speaker clip included);
 * - ../shared/speakers/librispeech_test-other: verification EER over all pairs, whole utterances
 *   and 1.5-3 s crops; count accuracy on its packed 30 s windows (1-3 speakers each).
 * Windows are cut as the engine cuts them (transcription VAD settings, full 30 s encoder input).
 * - one-speaker recordings (en/, multi/, long/): how often they stay one speaker;
 * - with --engine: the whole engine in Chromium (bench/diarization-engine.ts): the time diarize=true
 *   adds (ratio, same page), DER of the transcript's speaker segments, the three-speaker clip's
 *   speaker-attributed transcript.
 * Run: node bench/diarization.mjs [--sets DIR,DIR] [--diar-only] [--no-one-speaker] [--test-windows N] [--constants FILE] [--min-separation T]
 *      (--sets: folders laid out like ../shared/eval whose diar/ is measured, default STS_EVAL_DIR;
 *      development: --sets ../shared/dev,../shared/eval)
 *      (--min-separation: the count rule's threshold instead of CLUSTER_DEFAULTS.minSeparation, e.g. one
 *      calibrated by scripts/fit-speaker-count.mjs for another constants file; STS_DIARIZER='{json}'
 *      overrides other DiarizerOptions, e.g. '{"frames":null,"turns":{"frameWeight":0}}')
 *      node bench/diarization.mjs --engine [--rounds N] [--threads N] [--model NAME] [--out FILE.json] [--score FILE.json] [--segmentation]
 *      (--segmentation: diarize with the pretrained segmentation model from ../shared/models, STS_MODELS_DIR;
 *      without --engine it takes an optional model FILE, and STS_SEGMENTED='{json}' overrides SEGMENTED_DEFAULTS)
 *      (--rounds 0: no timing, one diarized transcription per clip, for the DER alone)
 * (hidden states are cached in tmp/speaker-cache)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EVAL_DIR } from '../config/paths';
import { decodingWindows, speechRegions, type SpeechRegion } from '../engine/vad/windows';
import { decodeSpeakerConstants, SHIPPED_SPEAKER_ENCODER, type SpeakerConstants, type SpeakerConstantsFile } from '../engine/speakers/constants';
import { SpeakerDiarizer, diarizationRegions, evidenceRegions, type DiarizerOptions } from '../engine/speakers/diarize';
import { embedSpan, SAMPLES_PER_POSITION, type HiddenWindow } from '../engine/speakers/embed';
import { SegmentedDiarizer, SEGMENTED_DEFAULTS, type SegmentedOptions } from '../engine/speakers/segmented-diarize';
import type { SegmentationModel } from '../engine/speakers/segmentation-model';
import { SEGMENTATION_MODEL_FILE } from '../config/paths';
import type { SpeakerTurn } from '../engine/speakers/turns';
import { testWindows } from '../scripts/fit-speaker-windows';
import { loadWindows, POSITIONS, type LabelledWindow } from '../scripts/fit-speaker-model';
import { seeded } from '../engine/decoding/seeded-random';
import { attributedWordAccuracy, engineDer, runEngine, type EngineReport } from './diarization-engine';
import { formatTable, percent } from './lib/table';
import { diarizationError, oneSpeakerAtATime, parseRttm, type Turn } from './score/der';
import type { ModelName } from '../engine/protocol';
import { dot } from '../engine/speakers/cluster';
import { decodeFile, segmentationModel, vadProbabilities, windowHidden } from './speaker-features';

const SR = 16_000;

export interface DiarClip {
  name: string;
  /** The set it comes from (the folder holding diar/, e.g. ../shared/dev). */
  set: string;
  /** File name inside diar/. */
  file: string;
  audio: Float32Array;
  speakers: number;
  /** Null for the clip that has only speaker-attributed text. */
  reference: Turn[] | null;
  /** The speaker-attributed reference text (no times), where the manifest has one. */
  textTurns: Array<{ speaker: string; text: string }> | null;
}

/** The clips of `<root>/diar` (root: a folder laid out like ../shared/eval, default STS_EVAL_DIR). */
export function diarClips(root: string = EVAL_DIR): DiarClip[] {
  const manifest = JSON.parse(readFileSync(join(root, 'diar/manifest.json'), 'utf8')) as Array<{
    file: string;
    rttm: string | null;
    num_speakers: number;
    turns?: Array<{ speaker: string; text: string }>;
  }>;
  return manifest.map((m) => ({
    name: m.file.replace(/\.\w+$/, ''),
    set: basename(root),
    file: m.file,
    textTurns: m.turns ?? null,
    audio: decodeFile(join(root, 'diar', m.file)),
    speakers: m.num_speakers,
    reference: m.rttm ? parseRttm(readFileSync(join(root, 'diar', m.rttm), 'utf8')) : null,
  }));
}

/** A recording known to hold one speaker. */
export interface OneSpeakerClip {
  name: string;
  audio: Float32Array;
}

/**
 * One-speaker recordings: every clip of en/, multi/ and long/ whose manifest names one speaker, plus,
 * for each en/ speaker with several clips, those clips joined with 0.6 s of silence (the longer
 * recordings are the ones a clustering can wrongly split).
 */
export function singleSpeakerClips(folders: readonly string[] = ['en', 'multi', 'long']): OneSpeakerClip[] {
  const out: OneSpeakerClip[] = [];
  for (const folder of folders) {
    const path = join(EVAL_DIR, folder, 'manifest.json');
    if (!existsSync(path)) continue;
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as Array<{ file: string; speaker?: unknown }>;
    const bySpeaker = new Map<string, Float32Array[]>();
    for (const m of manifest) {
      if (typeof m.speaker !== 'string' || /multiple/i.test(m.speaker)) continue;
      const audio = decodeFile(join(EVAL_DIR, folder, m.file));
      out.push({ name: `${folder}/${m.file}`, audio });
      bySpeaker.set(m.speaker, [...(bySpeaker.get(m.speaker) ?? []), audio]);
    }
    if (folder !== 'en') continue;
    for (const [speaker, parts] of bySpeaker) {
      if (parts.length < 2) continue;
      const gap = Math.round(0.6 * SR);
      const joined = new Float32Array(parts.reduce((n, p) => n + p.length + gap, 0));
      let at = 0;
      for (const p of parts) {
        joined.set(p, at);
        at += p.length + gap;
      }
      out.push({ name: `${folder}/${speaker} (${parts.length} clips joined)`, audio: joined });
    }
  }
  return out;
}

export interface OneSpeakerRow {
  clip: string;
  seconds: number;
  found: number;
}

/** Speaker count with no max_speakers on one-speaker recordings (own VAD regions, engine windows). */
export async function evalOneSpeaker(c: SpeakerConstants, clips: readonly OneSpeakerClip[], options: Partial<DiarizerOptions> = {}): Promise<OneSpeakerRow[]> {
  const rows: OneSpeakerRow[] = [];
  for (const clip of clips) {
    const probs = await vadProbabilities(clip.audio);
    const turns = await diarizeClip(c, clip.audio, diarizationRegions(probs, clip.audio.length), null, options, evidenceRegions(probs, clip.audio.length));
    rows.push({ clip: clip.name, seconds: clip.audio.length / SR, found: Math.max(1, speakerCount(turns)) });
  }
  return rows;
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

/** Consecutive 30 s chunks from the recording's start (the last one shorter). */
function fixedChunks(total: number): SpeechRegion[] {
  const out: SpeechRegion[] = [];
  for (let s = 0; s < total; s += 30 * SR) out.push({ startSample: s, endSample: Math.min(total, s + 30 * SR) });
  return out;
}

/** Runs diarization over a clip the way the engine would: its transcription windows, one encoder run each. */
export async function diarizeClip(
  c: SpeakerConstants,
  audio: Float32Array,
  regions: readonly SpeechRegion[],
  maxSpeakers: number | null,
  options: Partial<DiarizerOptions> = {},
  evidence: readonly SpeechRegion[] = regions,
): Promise<SpeakerTurn[]> {
  const probs = await vadProbabilities(audio);
  const windows = process.env.STS_SPEAKER_CHUNKS === 'fixed' ? fixedChunks(audio.length) : decodingWindows(speechRegions(probs, { totalSamples: audio.length }), probs, audio.length);
  const started = performance.now();
  const diarizer = new SpeakerDiarizer(c, regions, options, evidence);
  return timedDiarizer(c, audio, windows, diarizer, maxSpeakers, performance.now() - started);
}

/** Feeds every window's encoder features to `diarizer` and finishes it, timing its own work (lastDiarizerMs) after `setupMs`. */
async function timedDiarizer(
  c: SpeakerConstants,
  audio: Float32Array,
  windows: readonly { startSample: number; endSample: number }[],
  diarizer: Pick<SpeakerDiarizer, 'addWindow' | 'finish'>,
  maxSpeakers: number | null,
  setupMs: number,
): Promise<SpeakerTurn[]> {
  let work = setupMs;
  for (const w of windows) {
    const hidden = await windowHidden(audio.subarray(w.startSample, w.endSample), c.encoder);
    const started = performance.now();
    diarizer.addWindow(hidden, POSITIONS, w.startSample, w.endSample);
    work += performance.now() - started;
  }
  const started = performance.now();
  const turns = diarizer.finish(maxSpeakers);
  lastDiarizerMs = work + performance.now() - started;
  return turns;
}

/** The same with the pretrained segmentation model (segmented-diarize.ts): its windows, then the encoder windows' features. */
export async function diarizeClipSegmented(
  c: SpeakerConstants,
  audio: Float32Array,
  model: SegmentationModel,
  maxSpeakers: number | null,
  options: Partial<SegmentedOptions> = {},
): Promise<SpeakerTurn[]> {
  const probs = await vadProbabilities(audio);
  const windows = decodingWindows(speechRegions(probs, { totalSamples: audio.length }), probs, audio.length);
  const started = performance.now();
  const segments = await model.windows(audio, options.hopSamples ?? SEGMENTED_DEFAULTS.hopSamples);
  const diarizer = new SegmentedDiarizer(SpeakerDiarizer.fromVad(c, probs, audio.length), segments, audio.length, options);
  return timedDiarizer(c, audio, windows, diarizer, maxSpeakers, performance.now() - started);
}

/**
 * CPU time of the last diarizeClip's own work (embeddings, clustering, turns), without the hidden
 * states, which whisper-base's transcription encoder gives as an extra output.
 */
export let lastDiarizerMs = 0;

const asTurns = (turns: readonly SpeakerTurn[]): Turn[] => turns.map((t) => ({ speaker: String(t.speaker), start: t.startMs / 1000, end: t.endMs / 1000 }));
const speakerCount = (turns: readonly SpeakerTurn[]): number => new Set(turns.map((t) => t.speaker)).size;

export interface DiarRow {
  clip: string;
  set: string;
  regions: 'vad' | 'oracle';
  bound: number | null;
  der25: number | null;
  der0: number | null;
  missed: number | null;
  fa: number | null;
  conf: number | null;
  /** Scored seconds at collar 0.25 and 0: reference, and the error (missed + false alarm + confusion). */
  ref25: number | null;
  err25: number | null;
  ref0: number | null;
  err0: number | null;
  found: number;
  truth: number;
  /** The diarizer's own work (lastDiarizerMs). */
  ms: number;
}

/** With `segmentation`, the pretrained model's turns replace the VAD regions (no oracle rows). */
export async function evalDiar(
  c: SpeakerConstants,
  clips: readonly DiarClip[],
  options: Partial<DiarizerOptions> = {},
  vadOptions = {},
  segmentation: { model: SegmentationModel; options: Partial<SegmentedOptions> } | null = null,
): Promise<DiarRow[]> {
  const rows: DiarRow[] = [];
  for (const clip of clips) {
    const probs = await vadProbabilities(clip.audio);
    const vad = diarizationRegions(probs, clip.audio.length, vadOptions);
    const evidence = evidenceRegions(probs, clip.audio.length, vadOptions);
    const modes: Array<['vad' | 'oracle', SpeechRegion[], SpeechRegion[]]> = [['vad', vad, evidence]];
    if (clip.reference && !segmentation) modes.push(['oracle', oracleRegions(clip.reference), oracleRegions(clip.reference)]);
    for (const [mode, regions, pooled] of modes) {
      for (const bound of [null, clip.speakers]) {
        const turns = segmentation
          ? await diarizeClipSegmented(c, clip.audio, segmentation.model, bound, segmentation.options)
          : await diarizeClip(c, clip.audio, regions, bound, options, pooled);
        const to = clip.audio.length / SR;
        const r25 = clip.reference ? diarizationError(clip.reference, asTurns(turns), { collar: 0.25, from: 0, to }) : null;
        const r0 = clip.reference ? diarizationError(clip.reference, asTurns(turns), { collar: 0, from: 0, to }) : null;
        rows.push({
          clip: clip.name,
          set: clip.set,
          regions: mode,
          bound,
          der25: r25?.der ?? null,
          der0: r0?.der ?? null,
          missed: r25 ? r25.missed / r25.reference : null,
          fa: r25 ? r25.falseAlarm / r25.reference : null,
          conf: r25 ? r25.confusion / r25.reference : null,
          ref25: r25?.reference ?? null,
          err25: r25 ? r25.der * r25.reference : null,
          ref0: r0?.reference ?? null,
          err0: r0 ? r0.der * r0.reference : null,
          found: speakerCount(turns),
          truth: clip.speakers,
          ms: lastDiarizerMs,
        });
      }
    }
  }
  return rows;
}

export interface DiarSummary {
  /** Pooled over clips: summed error over summed reference time (the field's convention). */
  pooled25: number;
  pooled0: number;
  der25: number;
  der0: number;
  missed: number;
  fa: number;
  conf: number;
  countAcc: number;
  n: number;
}

/** Pooled DER and the mean over clips (each clip's DER, as the earlier notes report it) of one regions/bound mode. */
export function summarise(rows: readonly DiarRow[], regions: 'vad' | 'oracle', bounded: boolean): DiarSummary {
  const sel = rows.filter((r) => r.regions === regions && (r.bound !== null) === bounded);
  const scored = sel.filter((r) => r.der25 !== null);
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  return {
    pooled25: sum(scored.map((r) => r.err25!)) / Math.max(1e-9, sum(scored.map((r) => r.ref25!))),
    pooled0: sum(scored.map((r) => r.err0!)) / Math.max(1e-9, sum(scored.map((r) => r.ref0!))),
    der25: mean(scored.map((r) => r.der25!)),
    der0: mean(scored.map((r) => r.der0!)),
    missed: mean(scored.map((r) => r.missed!)),
    fa: mean(scored.map((r) => r.fa!)),
    conf: mean(scored.map((r) => r.conf!)),
    countAcc: mean(sel.map((r) => (r.found === r.truth ? 1 : 0))),
    n: sel.length,
  };
}

/** One line per set (and all sets together) and mode: mean DER at both collars, its parts, count right. */
export function summaryTable(rows: readonly DiarRow[]): string {
  const sets = [...new Set(rows.map((r) => r.set))];
  const groups = sets.length > 1 ? [...sets.map((s) => [s, rows.filter((r) => r.set === s)] as const), ['all', rows] as const] : [[sets[0] ?? '-', rows] as const];
  const lines: string[][] = [];
  for (const [name, sel] of groups) {
    for (const regions of ['vad', 'oracle'] as const) {
      for (const bounded of [false, true]) {
        const s = summarise(sel, regions, bounded);
        if (s.n === 0) continue;
        lines.push([name, regions, bounded ? 'true count' : 'auto', percent(s.pooled25), percent(s.pooled0), percent(s.der25), percent(s.der0), percent(s.missed), percent(s.fa), percent(s.conf), `${percent(s.countAcc)} of ${s.n}`]);
      }
    }
  }
  return formatTable(['set', 'regions', 'max_speakers', 'DER c0.25', 'DER c0', 'mean DER c0.25', 'mean DER c0', 'miss', 'FA', 'conf', 'count right'], lines);
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

/** Cosine of two unit vectors: their dot product, as the clustering computes it. */
export const cosine = dot;

/** EER on the packed test-other windows: whole utterances, one seeded 1.5-3 s crop of each, and one 1.5 s crop of each. */
export function verification(c: SpeakerConstants, windows: readonly LabelledWindow[]): { utterance: number; crop: number; crop15: number } {
  const rand = seeded(7);
  const rand15 = seeded(8);
  const whole: Array<{ speaker: string; v: Float32Array }> = [];
  const crops: Array<{ speaker: string; v: Float32Array }> = [];
  const crops15: Array<{ speaker: string; v: Float32Array }> = [];
  for (const w of windows) {
    const hw: HiddenWindow = { hidden: w.hidden, positions: POSITIONS, dims: w.dims, startSample: 0 };
    for (const { speaker, regions } of w.speech) {
      if (regions.length === 0) continue;
      // pooled over all speech positions of the utterance: average of per-region pools weighted by length
      const start = regions[0]!.startSample;
      const end = regions[regions.length - 1]!.endSample;
      whole.push({ speaker, v: embedSpan(hw, start, end, c) });
      const len = Math.round((1.5 + 1.5 * rand()) * SR);
      const from = start + Math.floor(rand() * Math.max(0, end - start - len));
      crops.push({ speaker, v: embedSpan(hw, from, Math.min(end, from + len), c) });
      // the diarizer's piece length, from its own random stream so the 1.5-3 s crops stay as they were
      const at = start + Math.floor(rand15() * Math.max(0, end - start - 1.5 * SR));
      crops15.push({ speaker, v: embedSpan(hw, at, Math.min(end, at + 1.5 * SR), c) });
    }
  }
  return { utterance: verificationEer(whole), crop: verificationEer(crops), crop15: verificationEer(crops15) };
}

/** EER over every pair of unit embeddings: same speaker against different speakers, by cosine. */
export function verificationEer(xs: ReadonlyArray<{ speaker: string; v: Float32Array }>): number {
  const same: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) (xs[i]!.speaker === xs[j]!.speaker ? same : diff).push(cosine(xs[i]!.v, xs[j]!.v));
  return equalErrorRate(same, diff);
}

/** Count accuracy with no max_speakers on the packed test-other windows (speech regions from VAD). */
export function packedCountAccuracy(c: SpeakerConstants, windows: readonly LabelledWindow[], options: Partial<DiarizerOptions> = {}): { acc: number; n: number; confusion: Map<string, number> } {
  let right = 0;
  const confusion = new Map<string, number>();
  for (const w of windows) {
    const regions = w.speech.flatMap((s) => s.regions);
    const d = new SpeakerDiarizer(c, regions, options);
    d.addWindow(w.hidden, POSITIONS, 0, POSITIONS * SAMPLES_PER_POSITION);
    const found = speakerCount(d.finish(null));
    const truth = new Set(w.speech.map((s) => s.speaker)).size;
    if (found === truth) right++;
    const key = `${truth}->${found}`;
    confusion.set(key, (confusion.get(key) ?? 0) + 1);
  }
  return { acc: right / windows.length, n: windows.length, confusion };
}

/** The shipped constants, or another fitted file (e.g. from scripts/fit-speaker-constants.mjs --out). */
export function loadShippedConstants(path = join(import.meta.dirname, `../engine/speakers/speaker-constants-${SHIPPED_SPEAKER_ENCODER}.json`)): SpeakerConstants {
  const file = JSON.parse(readFileSync(path, 'utf8')) as SpeakerConstantsFile;
  return decodeSpeakerConstants(file);
}

/** `--constants FILE` (its `encoder` says whose features it is for), else the shipped constants. */
export function constantsFromArgs(args: readonly string[]): SpeakerConstants {
  const path = optionValue(args, '--constants');
  return path ? loadShippedConstants(path) : loadShippedConstants();
}

export function diarTable(rows: readonly DiarRow[]): string {
  const n = (x: number | null): string => (x === null ? '-' : percent(x));
  return formatTable(
    ['set', 'clip', 'regions', 'max_speakers', 'DER c0.25', 'DER c0', 'miss', 'FA', 'conf', 'speakers', 'diarizer ms'],
    rows.map((r) => [r.set, r.clip, r.regions, r.bound === null ? 'auto' : String(r.bound), n(r.der25), n(r.der0), n(r.missed), n(r.fa), n(r.conf), `${r.found}/${r.truth}`, r.ms.toFixed(0)]),
  );
}

function optionValue(args: readonly string[], name: string): string | null {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1]! : null;
}

/** `--engine`: the whole engine in Chromium (time cost, pipeline DER, attributed transcript), written to bench/results/. */
async function mainEngine(args: string[]): Promise<void> {
  const clips = diarClips();
  const rounds = Number(optionValue(args, '--rounds') ?? 1);
  const threads = optionValue(args, '--threads');
  // --score FILE.json: scores a saved report (this run's --out, or an older code's) without running the engine
  const saved = optionValue(args, '--score');
  const report: EngineReport = saved
    ? (JSON.parse(readFileSync(saved, 'utf8')) as EngineReport)
    : await runEngine(clips, { rounds, threads: threads === null ? null : Number(threads), log: (line) => console.log(`  ${line}`), segmentation: args.includes('--segmentation'), model: (optionValue(args, '--model') ?? undefined) as ModelName | undefined });
  const n = (x: number | null | undefined): string => (x === null || x === undefined ? '-' : percent(x));
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const rows = report.clips.map((r, i) => {
    const clip = clips[i]!;
    const der = engineDer(clip, r);
    const found = new Set(r.segments.map((s) => s.speaker_id)).size;
    const timed = r.plainMs.length > 0 && r.diarMs.length > 0;
    const [plain, diar, ratio] = timed ? [(sum(r.plainMs) / r.plainMs.length / 1000).toFixed(2), (sum(r.diarMs) / r.diarMs.length / 1000).toFixed(2), (sum(r.diarMs) / sum(r.plainMs)).toFixed(3)] : ['-', '-', '-'];
    return [clip.name, plain, diar, ratio, n(der?.der25), n(der?.der0), n(der?.missed), n(der?.fa), n(der?.conf), `${found}/${clip.speakers}`];
  });
  console.log(`\n${report.model}${report.segmentation ? ' with the segmentation model' : ', built-in diarization'}, threads ${report.threads ?? 'library default'}, ${report.rounds} round(s) of A B B A per clip; speaker segments of the diarized transcript scored`);
  console.log(formatTable(['clip', 'plain s', 'diarize s', 'ratio', 'DER c0.25', 'DER c0', 'miss', 'FA', 'conf', 'speakers'], rows));
  if (report.rounds > 0) console.log(`diarize=true costs ${percent(report.ratio - 1)} on top of transcription (summed wall time ratio ${report.ratio.toFixed(3)})`);
  const scored = report.clips.map((r, i) => engineDer(clips[i]!, r)).filter((d) => d !== null);
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`mean over ${scored.length} RTTM clips: DER c0.25 ${percent(mean(scored.map((d) => d.der25)))}, c0 ${percent(mean(scored.map((d) => d.der0)))}`);
  const pooled = (key: 'missed' | 'fa' | 'conf' | 'der25', ref: 'ref25' | 'ref0' = 'ref25'): string => percent(sum(scored.map((d) => d[key] * d[ref])) / sum(scored.map((d) => d[ref])));
  const right = report.clips.filter((r, i) => new Set(r.segments.map((s) => s.speaker_id)).size === clips[i]!.speakers).length;
  console.log(
    `pooled over ${scored.length} RTTM clips (summed error / summed reference): DER c0.25 ${pooled('der25')} (missed ${pooled('missed')}, false alarm ${pooled('fa')}, confusion ${pooled('conf')}), ` +
      `c0 ${percent(sum(scored.map((d) => d.der0 * d.ref0)) / sum(scored.map((d) => d.ref0)))}; right speaker count on ${right} of ${clips.length} (${percent(right / clips.length)})`,
  );
  // a transcript's segments name one speaker at a time: the reference without its overlap bounds them
  const floor = (collar: number): string => {
    const r = clips.filter((c) => c.reference).map((c) => diarizationError(c.reference!, oneSpeakerAtATime(c.reference!), { collar, from: 0, to: c.audio.length / 16_000 }));
    return percent(sum(r.map((d) => d.missed + d.falseAlarm + d.confusion)) / sum(r.map((d) => d.reference)));
  };
  console.log(`floor of any one-speaker-at-a-time output (the reference with its overlap removed), pooled: DER c0.25 ${floor(0.25)}, c0 ${floor(0)}`);
  const lines: string[] = [];
  for (const [i, r] of report.clips.entries()) {
    const clip = clips[i]!;
    if (!clip.textTurns) continue;
    const hyp = r.segments.map((s) => ({ speaker: String(s.speaker_id), text: s.text }));
    const acc = attributedWordAccuracy(clip.textTurns, hyp);
    lines.push(`${clip.name} (${clip.speakers} speakers), speaker-attributed transcript:`);
    for (const s of r.segments) lines.push(`  [${(s.start_ms / 1000).toFixed(2)}-${((s.start_ms + s.duration_ms) / 1000).toFixed(2)} s] speaker ${s.speaker_id}: ${s.text}`);
    lines.push('  reference:');
    for (const t of clip.textTurns) lines.push(`  ${t.speaker}: ${t.text}`);
    lines.push(`  words right with the right speaker: ${acc.matched}/${acc.words} (${percent(acc.accuracy)})`);
  }
  console.log(`\n${lines.join('\n')}`);
  const out = optionValue(args, '--out');
  if (out) {
    writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
    console.log(`wrote ${out}`);
  }
}

function segmentationFile(args: readonly string[]): string {
  const next = optionValue(args, '--segmentation');
  return next && !next.startsWith('--') ? next : SEGMENTATION_MODEL_FILE;
}

/** STS_SEGMENTED='{"hopSamples":80000,...}' overrides SEGMENTED_DEFAULTS, for sweeps on the development sets. */
function segmentedOptions(): Partial<SegmentedOptions> {
  return process.env.STS_SEGMENTED ? (JSON.parse(process.env.STS_SEGMENTED) as Partial<SegmentedOptions>) : {};
}

export async function main(args: string[] = []): Promise<void> {
  if (args.includes('--engine')) return mainEngine(args);
  const c = constantsFromArgs(args);
  console.log(`speaker features: ${c.encoder}'s`);
  const sets = (optionValue(args, '--sets') ?? EVAL_DIR).split(',');
  // --segmentation [FILE]: the pretrained segmentation model (default ../shared/models's copy, STS_SEGMENTATION_MODEL)
  const segmentation = args.includes('--segmentation') ? { model: await segmentationModel(segmentationFile(args)), options: segmentedOptions() } : null;
  if (segmentation) console.log(`segmentation model: ${segmentationFile(args)}, options ${JSON.stringify({ ...SEGMENTED_DEFAULTS, ...segmentation.options })}`);
  const separation = optionValue(args, '--min-separation');
  // STS_DIARIZER='{json}': other DiarizerOptions (frames, turns, ...), as STS_SEGMENTED overrides SEGMENTED_DEFAULTS
  const overrides = JSON.parse(process.env.STS_DIARIZER ?? '{}') as Partial<DiarizerOptions>;
  const options: Partial<DiarizerOptions> = separation === null ? overrides : { ...overrides, cluster: { ...overrides.cluster, minSeparation: Number(separation) } };
  if (process.env.STS_DIARIZER) console.log(`diarizer options: ${process.env.STS_DIARIZER}`);
  if (separation !== null) console.log(`count rule: separation ${Number(separation)}`);
  const rows = await evalDiar(c, sets.flatMap((root) => diarClips(root)), options, {}, segmentation);
  console.log(diarTable(rows));
  console.log();
  console.log(summaryTable(rows));
  if (!args.includes('--no-one-speaker')) {
    const one = await evalOneSpeaker(c, singleSpeakerClips(), options);
    const wrong = one.filter((r) => r.found !== 1);
    console.log();
    console.log(`one-speaker recordings (en/, multi/, long/ clips naming one speaker, and each en/ speaker's clips joined), no max_speakers: ` +
      `one speaker found on ${one.length - wrong.length} of ${one.length}${wrong.length ? `; split: ${wrong.map((r) => `${r.clip} (${r.seconds.toFixed(0)} s) -> ${r.found}`).join(', ')}` : ''}`);
  }
  if (args.includes('--diar-only')) return;
  const limit = args.indexOf('--test-windows');
  const test = await loadWindows(testWindows(limit >= 0 ? Number(args[limit + 1]) : Infinity), c.encoder);
  const eer = verification(c, test);
  const count = packedCountAccuracy(c, test, options);
  console.log();
  console.log(`librispeech test-other EER: whole utterances ${percent(eer.utterance)}, 1.5-3 s crops ${percent(eer.crop)}, 1.5 s crops ${percent(eer.crop15)}`);
  console.log(`count right on ${count.n} packed test-other windows (no max_speakers): ${percent(count.acc)}  ${[...count.confusion].map(([k, v]) => `${k}:${v}`).join(' ')}`);
}
