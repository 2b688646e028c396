import { describe, expect, it } from 'vitest';
import { ROOT } from '../../config/paths';
import { clipMatcher, type Clip } from '../../bench/lib/manifest';
import type { ClipRun } from '../../bench/lib/run-side';
import { containsRequired, summarize } from '../../bench/lib/summary';
import { summarizeDiarization } from '../../bench/lib/diarization-summary';
import type { Turn } from '../../bench/score/der';
import { createScorer } from '../../bench/score/error-rate';
import { loadSpellings } from '../../bench/score/spellings';

const scorer = createScorer(loadSpellings(ROOT));

const clip = (over: Partial<Clip>): Clip => ({
  folder: 'en',
  file: 'a.wav',
  lang: 'en',
  text: null,
  refQuality: 'human ground truth',
  durationMs: 1000,
  mustContain: [],
  biasPhrases: [],
  rttm: null,
  speakers: null,
  ...over,
});

const run = (c: Clip, text: string | null, wall: number, error?: string): ClipRun => ({
  clip: c,
  params: 'language=en',
  transcript: text === null ? null : { text },
  wall_ms: wall,
  audio_ms: c.durationMs ?? 0,
  ...(error ? { error } : {}),
});

describe('summarize', () => {
  it('pools edits over reference words and wall over audio time', () => {
    const s = summarize(
      [
        run(clip({ file: 'a', text: 'ten of clubs', durationMs: 2000 }), '10 of clubs.', 1000),
        run(clip({ file: 'b', text: 'he could wait no longer', durationMs: 4000 }), 'he could not wait', 1000),
      ],
      scorer,
    );
    expect(s.wer).toBeCloseTo(3 / 8, 10); // "wait no longer" -> "not wait": 3 edits
    expect(s.rtf).toBeCloseTo(2000 / 6000, 10);
    expect(s.referenceWords).toBe(8);
    expect(s.cer).toBeNull();
    expect(s.approximate).toBe(false);
  });

  it('counts a failed clip as all its words missing, but not in the speed', () => {
    const s = summarize(
      [
        run(clip({ file: 'a', text: 'one two three four', durationMs: 1000 }), 'one two three four', 500),
        run(clip({ file: 'b', text: 'five six', durationMs: 9000 }), null, 0, 'timed out'),
      ],
      scorer,
    );
    expect(s.failed).toBe(1);
    expect(s.wer).toBeCloseTo(2 / 6, 10);
    expect(s.rtf).toBeCloseTo(0.5, 10);
  });

  it('scores zh/ja/ko apart by characters and flags approximate references', () => {
    const s = summarize(
      [run(clip({ lang: 'zh', text: '欢迎大家', refQuality: 'documented expected output (README)' }), '欢迎大', 100)],
      scorer,
    );
    expect(s.wer).toBeNull();
    expect(s.cer).toBeCloseTo(1 / 4, 10);
    expect(s.approximate).toBe(true);
  });

  it('leaves clips without a reference out of the error rates', () => {
    const s = summarize([run(clip({ folder: 'long', text: null }), 'bonjour', 100)], scorer);
    expect(s.wer).toBeNull();
    expect(s.rtf).toBeCloseTo(0.1, 10);
  });
});

describe('clip selection and required strings', () => {
  it('matches folder/file globs', () => {
    const match = clipMatcher(['en/*', 'long/wts_radio_short_fr.mp3']);
    expect(match(clip({ folder: 'en', file: 'jfk.flac' }))).toBe(true);
    expect(match(clip({ folder: 'long', file: 'wts_radio_short_fr.mp3' }))).toBe(true);
    expect(match(clip({ folder: 'long', file: 'funasr_long_zh.wav' }))).toBe(false);
    expect(match(clip({ folder: 'multi', file: 'en.wav' }))).toBe(false);
  });

  it('checks must_contain case-insensitively', () => {
    const c = clip({ folder: 'bias', mustContain: ['ComfyUI'] });
    expect(containsRequired(c, 'open the comfyui folder')).toBe(true);
    expect(containsRequired(c, 'open the compf you i folder')).toBe(false);
    expect(containsRequired(clip({}), 'anything')).toBeNull();
  });
});

describe('summarizeDiarization', () => {
  const diarized = (c: Clip, segments: unknown[]): ClipRun => ({ clip: c, params: 'diarize=true', transcript: { text: '', segments }, wall_ms: 1, audio_ms: c.durationMs ?? 0 });
  const seg = (speaker_id: number, start: number, end: number) => ({ text: 'x', speaker_id, start_ms: start * 1000, duration_ms: (end - start) * 1000 });
  // clip a: two speakers, 0-4 s and 4-8 s; clip b: one speaker, 0-2 s
  const refs: Record<string, Turn[]> = {
    a: [{ speaker: 'A', start: 0, end: 4 }, { speaker: 'B', start: 4, end: 8 }],
    b: [{ speaker: 'C', start: 0, end: 2 }],
  };
  const reference = (c: Clip) => refs[c.file] ?? null;
  const a = clip({ folder: 'diar', file: 'a', durationMs: 10_000, speakers: 2 });
  const b = clip({ folder: 'diar', file: 'b', durationMs: 10_000, speakers: 1 });

  it('pools DER over clips, with its parts and the right count', () => {
    // a: the second turn given to the first speaker from 4 to 6 s (2 s confusion at collar 0), found 2 speakers;
    // b: found, but split over two speakers (1 s confusion), and 1 s of false alarm after it
    const s = summarizeDiarization([diarized(a, [seg(0, 0, 6), seg(1, 6, 8)]), diarized(b, [seg(0, 0, 1), seg(1, 1, 3)])], reference)!;
    expect(s.clips).toBe(2);
    expect(s.scored).toBe(2);
    expect(s.der0).toBeCloseTo((2 + 1 + 1) / (8 + 2), 6);
    expect(s.countRight).toBe(1);
    expect(s.counted).toBe(2);
    expect(s.der25).not.toBeNull();
    expect(s.der25! < s.der0!).toBe(true);
    expect(s.missed! + s.falseAlarm! + s.confusion!).toBeCloseTo(s.der25!, 6);
  });

  it('counts speakers without times, scores DER only with them, and skips undiarized runs', () => {
    const untimed = diarized(a, [{ text: 'x', speaker_id: 0 }, { text: 'y', speaker_id: 1 }]);
    const s = summarizeDiarization([untimed, run(clip({ folder: 'diar', file: 'c' }), 'plain', 1)], reference)!;
    expect(s.clips).toBe(1);
    expect(s.scored).toBe(0);
    expect(s.der25).toBeNull();
    expect(s.countRight).toBe(1);
    expect(summarizeDiarization([run(b, 'not diarized', 1)], reference)).toBeNull();
  });
});
