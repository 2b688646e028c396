import { readFileSync } from 'node:fs';
import { diarizationError, parseRttm, segmentTurns, type SpeakerSegment, type Turn } from '../score/der';
import type { Clip } from './manifest';
import type { ClipRun } from './run-side';

/**
 * Diarization over the clips of a run whose transcripts carry speakers (diarize=true), by the
 * conventions of ../shared/eval/README.md: DER pooled over clips (summed error over summed reference
 * time) at collar 0.25 and 0, its parts at collar 0.25, and the share of clips with the right count.
 */
export interface DiarizationSummary {
  /** Clips whose transcript has speaker segments. */
  clips: number;
  /** Of those, clips with reference turns and timed segments (include_timestamps=true): DER is over these. */
  scored: number;
  der25: number | null;
  der0: number | null;
  /** Shares of the collar-0.25 reference time. */
  missed: number | null;
  falseAlarm: number | null;
  confusion: number | null;
  /** Clips whose manifest gives a speaker count, and those where the transcript has that many speakers. */
  counted: number;
  countRight: number;
}

/** The speaker segments of a transcript, or null when it has none (not diarized, or failed). */
function speakerSegments(run: ClipRun): Array<Partial<SpeakerSegment> & { speaker_id: number }> | null {
  const segments = run.transcript?.['segments'];
  if (!Array.isArray(segments)) return null;
  const withSpeaker = segments.filter((s): s is { speaker_id: number } => typeof (s as { speaker_id?: unknown })?.speaker_id === 'number');
  return withSpeaker.length === segments.length ? withSpeaker : null;
}

const timed = (s: Partial<SpeakerSegment>): s is SpeakerSegment => typeof s.start_ms === 'number' && typeof s.duration_ms === 'number';

/** Null when no run of `runs` was diarized. `reference` gives a clip's turns (default: its RTTM file). */
export function summarizeDiarization(runs: readonly ClipRun[], reference: (clip: Clip) => Turn[] | null = rttmTurns): DiarizationSummary | null {
  let clips = 0;
  let scored = 0;
  let counted = 0;
  let countRight = 0;
  const sums = { ref25: 0, err25: 0, ref0: 0, err0: 0, missed: 0, falseAlarm: 0, confusion: 0 };
  for (const run of runs) {
    const segments = speakerSegments(run);
    if (!segments) continue;
    clips++;
    if (run.clip.speakers !== null) {
      counted++;
      if (new Set(segments.map((s) => s.speaker_id)).size === run.clip.speakers) countRight++;
    }
    const ref = reference(run.clip);
    if (!ref || !segments.every(timed)) continue;
    scored++;
    const hyp = segmentTurns(segments);
    const to = run.audio_ms / 1000;
    const r25 = diarizationError(ref, hyp, { collar: 0.25, from: 0, to });
    const r0 = diarizationError(ref, hyp, { collar: 0, from: 0, to });
    sums.ref25 += r25.reference;
    sums.err25 += r25.missed + r25.falseAlarm + r25.confusion;
    sums.ref0 += r0.reference;
    sums.err0 += r0.missed + r0.falseAlarm + r0.confusion;
    sums.missed += r25.missed;
    sums.falseAlarm += r25.falseAlarm;
    sums.confusion += r25.confusion;
  }
  if (clips === 0) return null;
  const share = (x: number, of: number) => (scored > 0 && of > 0 ? x / of : null);
  return {
    clips,
    scored,
    der25: share(sums.err25, sums.ref25),
    der0: share(sums.err0, sums.ref0),
    missed: share(sums.missed, sums.ref25),
    falseAlarm: share(sums.falseAlarm, sums.ref25),
    confusion: share(sums.confusion, sums.ref25),
    counted,
    countRight,
  };
}

function rttmTurns(clip: Clip): Turn[] | null {
  return clip.rttm ? parseRttm(readFileSync(clip.rttm, 'utf8')) : null;
}
