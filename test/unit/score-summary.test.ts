import { describe, expect, it } from 'vitest';
import { ROOT } from '../../config/paths';
import { clipMatcher, type Clip } from '../../bench/lib/manifest';
import type { ClipRun } from '../../bench/lib/run-side';
import { containsRequired, summarize } from '../../bench/lib/summary';
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
