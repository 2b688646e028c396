/**
 * Diarization through the whole engine in headless Chromium (the library's public API, whisper-base,
 * its own VAD and windows): the time diarize=true adds to transcription, DER of the transcript's
 * speaker segments, and the three-speaker clip's speaker-attributed transcript.
 * Timing: each clip is transcribed with and without diarize=true in the same page, alternating
 * A B B A per round so drift (the shared machine's load) hits both sides alike; the figure is the
 * ratio of the summed wall times, never an absolute speed. The first diarized request's one-time
 * setup (speaker constants) is paid in an untimed warm-up.
 */
import { PageSession } from './lib/page-session';
import { BENCH_PAGES, startBenchServer } from './lib/server';
import type { TranscriptBody } from './pages/driver';
import { diarizationError, segmentTurns } from './score/der';
import type { DiarClip } from './diarization-eval';
import { SEGMENTATION_MODEL_PATH, SEGMENTATION_MODEL_SHA256 } from '../config/shared-models';
import type { ModelName } from '../engine/protocol';

export interface EngineSegment {
  text: string;
  speaker_id: number;
  start_ms: number;
  duration_ms: number;
}

export interface EngineClipResult {
  clip: string;
  audioMs: number;
  plainMs: number[];
  diarMs: number[];
  segments: EngineSegment[];
  text: string;
}

export interface EngineReport {
  model: string;
  /** Whether the pretrained segmentation model (../shared/models, served at /__models/) was used. */
  segmentation?: boolean;
  threads: number | null;
  rounds: number;
  clips: EngineClipResult[];
  /** Summed diarized wall time over summed plain wall time. */
  ratio: number;
}

const PLAIN = 'language=en&include_timestamps=true';
const DIARIZED = `${PLAIN}&diarize=true`;

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);

/**
 * Speaker-attributed word accuracy against a reference given as speaker turns of text (no times):
 * words are matched by longest common subsequence, hypothesis speakers mapped one-to-one to the
 * reference speakers so as to maximise matched words with the same speaker; the result is those
 * words over all reference words (a missing or misrecognised word counts as wrong).
 */
export function attributedWordAccuracy(reference: ReadonlyArray<{ speaker: string; text: string }>, hypothesis: ReadonlyArray<{ speaker: string; text: string }>): { accuracy: number; matched: number; words: number } {
  const ref = reference.flatMap((t) => words(t.text).map((w) => ({ w, s: t.speaker })));
  const hyp = hypothesis.flatMap((t) => words(t.text).map((w) => ({ w, s: t.speaker })));
  const n = ref.length;
  const m = hyp.length;
  const lcs = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = ref[i]!.w === hyp[j]!.w ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const pairs = new Map<string, number>();
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (ref[i]!.w === hyp[j]!.w) {
      const key = `${ref[i]!.s}\u0000${hyp[j]!.s}`;
      pairs.set(key, (pairs.get(key) ?? 0) + 1);
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  const refSpeakers = [...new Set(ref.map((r) => r.s))];
  const hypSpeakers = [...new Set(hyp.map((h) => h.s))];
  // exhaustive one-to-one mapping (a handful of speakers)
  const best = (i: number, used: Set<string>): number => {
    if (i === refSpeakers.length) return 0;
    let v = best(i + 1, used);
    for (const h of hypSpeakers) {
      if (used.has(h)) continue;
      used.add(h);
      v = Math.max(v, (pairs.get(`${refSpeakers[i]}\u0000${h}`) ?? 0) + best(i + 1, used));
      used.delete(h);
    }
    return v;
  };
  const matched = best(0, new Set());
  return { accuracy: n > 0 ? matched / n : 0, matched, words: n };
}

export async function runEngine(
  clips: readonly DiarClip[],
  options: { rounds: number; threads: number | null; log: (line: string) => void; segmentation?: boolean; model?: ModelName },
): Promise<EngineReport> {
  const model = options.model ?? 'whisper-base';
  const server = await startBenchServer();
  const session = await PageSession.open(server.url + BENCH_PAGES.ours, options.log);
  const results: EngineClipResult[] = [];
  try {
    const segmentationModel = options.segmentation ? { url: `/__models/${SEGMENTATION_MODEL_PATH}`, sha256: SEGMENTATION_MODEL_SHA256 } : undefined;
    await session.load({ model, threads: options.threads, ...(segmentationModel ? { segmentationModel } : {}) }, 300_000);
    const job = (clip: DiarClip, params: string) => ({ url: `/__eval/diar/${clip.file}`, params, input: 'pcm' as const, audio_ms: clip.audio.length / 16 });
    const timeout = (clip: DiarClip): number => 120_000 + 8 * (clip.audio.length / 16);
    for (const clip of clips) results.push({ clip: clip.name, audioMs: clip.audio.length / 16, plainMs: [], diarMs: [], segments: [], text: '' });
    // --rounds 0: no timing, one diarized transcription per clip (DER and the attributed transcript only)
    if (options.rounds === 0) {
      for (const [i, clip] of clips.entries()) {
        const out = await session.transcribe(job(clip, DIARIZED), timeout(clip));
        results[i]!.segments = (out.transcript as TranscriptBody & { segments?: EngineSegment[] }).segments ?? [];
        results[i]!.text = out.transcript.text;
        options.log(`${clip.name}: ${results[i]!.segments.length} segments`);
      }
    }
    // untimed warm-up: both paths once (the first diarized request loads the speaker constants)
    if (options.rounds > 0) for (const params of [PLAIN, DIARIZED]) await session.transcribe(job(clips[0]!, params), timeout(clips[0]!));
    for (let round = 0; round < options.rounds; round++) {
      for (const [i, clip] of clips.entries()) {
        const order = (round + i) % 2 === 0 ? [PLAIN, DIARIZED, DIARIZED, PLAIN] : [DIARIZED, PLAIN, PLAIN, DIARIZED];
        for (const params of order) {
          const out = await session.transcribe(job(clip, params), timeout(clip));
          const r = results[i]!;
          if (params === DIARIZED) {
            r.diarMs.push(out.wall_ms);
            r.segments = (out.transcript as TranscriptBody & { segments?: EngineSegment[] }).segments ?? [];
            r.text = out.transcript.text;
          } else r.plainMs.push(out.wall_ms);
        }
        options.log(`${clip.name}: plain ${results[i]!.plainMs.map((x) => x.toFixed(0)).join(' ')} ms, diarized ${results[i]!.diarMs.map((x) => x.toFixed(0)).join(' ')} ms`);
      }
    }
  } finally {
    await session.close();
    await server.close();
  }
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const ratio = sum(results.map((r) => sum(r.diarMs))) / sum(results.map((r) => sum(r.plainMs)));
  return { model, segmentation: options.segmentation === true, threads: options.threads, rounds: options.rounds, clips: results, ratio };
}

/** DER (collar 0.25 and 0, overlap scored) of the transcript's speaker segments. */
export function engineDer(
  clip: DiarClip,
  result: EngineClipResult,
): { der25: number; der0: number; missed: number; fa: number; conf: number; ref25: number; ref0: number } | null {
  if (!clip.reference) return null;
  const hyp = segmentTurns(result.segments);
  const to = clip.audio.length / 16_000;
  const r25 = diarizationError(clip.reference, hyp, { collar: 0.25, from: 0, to });
  const r0 = diarizationError(clip.reference, hyp, { collar: 0, from: 0, to });
  return { der25: r25.der, der0: r0.der, missed: r25.missed / r25.reference, fa: r25.falseAlarm / r25.reference, conf: r25.confusion / r25.reference, ref25: r25.reference, ref0: r0.reference };
}
