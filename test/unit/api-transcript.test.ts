import { describe, expect, it } from 'vitest';
import type { EngineResult, EngineSegment, EngineWord } from '../../engine/protocol';
import { DEFAULT_TRANSCRIPTION_PARAMS, type TranscriptionParams } from '../../src/api/params';
import { shapeTranscript } from '../../src/api/transcript';

const word = (text: string, startMs: number, endMs: number, confidence: number, speaker = 0): EngineWord => ({
  text,
  startMs,
  endMs,
  confidence,
  speaker,
});

function segment(speaker: number, language: string, words: EngineWord[], text?: string): EngineSegment {
  return {
    startMs: words[0]?.startMs ?? 0,
    endMs: words[words.length - 1]?.endMs ?? 0,
    text: text ?? words.map((w) => w.text).join(''),
    language,
    speaker,
    tokens: [],
    words: words.map((w) => ({ ...w, speaker })),
  };
}

/** Three utterances: speaker 5 (en), speaker 2 (en), speaker 5 again (de). */
const result: EngineResult = {
  durationMs: 9000.4,
  model: 'whisper-tiny',
  backend: 'wasm',
  segments: [
    segment(5, 'en', [word(' Hello', 120.4, 480.6, 0.91234), word(' there.', 480.6, 900.2, 0.5)]),
    segment(2, 'en', [word(' Hi', 1500, 1800, 0.99999)]),
    segment(2, 'en', [word(' again.', 1900, 2300, 1)]),
    segment(5, 'de', [word(' Guten', 3000, 3400, 0.8), word(' Tag.', 3400, 3900, 0.000001)]),
  ],
};

const params = (flags: Partial<TranscriptionParams>): TranscriptionParams => ({ ...DEFAULT_TRANSCRIPTION_PARAMS, ...flags });

describe('spec 2.4 rules, exact bodies', () => {
  it('rule 1: no flags gives only text', () => {
    expect(JSON.stringify(shapeTranscript(result, params({})))).toBe(
      '{"text":"Hello there. Hi again. Guten Tag."}',
    );
  });

  it('rule 2: diarize alone gives text and segments of text and speaker_id, turns merged, ids by first appearance', () => {
    expect(shapeTranscript(result, params({ diarize: true }))).toStrictEqual({
      text: 'Hello there. Hi again. Guten Tag.',
      segments: [
        { text: 'Hello there.', speaker_id: 0 },
        { text: 'Hi again.', speaker_id: 1 },
        { text: 'Guten Tag.', speaker_id: 0 },
      ],
    });
  });

  it('rule 3: diarize with timestamps keeps top-level start_ms and duration_ms', () => {
    const t = shapeTranscript(result, params({ diarize: true, include_timestamps: true }));
    expect(JSON.stringify(t)).toBe(
      '{"text":"Hello there. Hi again. Guten Tag.","start_ms":0,"duration_ms":9000,"segments":[' +
        '{"text":"Hello there.","speaker_id":0,"start_ms":120,"duration_ms":780},' +
        '{"text":"Hi again.","speaker_id":1,"start_ms":1500,"duration_ms":800},' +
        '{"text":"Guten Tag.","speaker_id":0,"start_ms":3000,"duration_ms":900}]}',
    );
  });

  it('every flag, not diarized: deterministic key order and values', () => {
    const t = shapeTranscript(
      result,
      params({ include_timestamps: true, include_words: true, include_language: true, include_confidence: true }),
    );
    expect(JSON.stringify(t)).toBe(
      '{"text":"Hello there. Hi again. Guten Tag.","language":"en","start_ms":0,"duration_ms":9000,"words":[' +
        '{"text":"Hello","start_ms":120,"duration_ms":361,"confidence":0.9123},' +
        '{"text":"there.","start_ms":481,"duration_ms":419,"confidence":0.5},' +
        '{"text":"Hi","start_ms":1500,"duration_ms":300,"confidence":1},' +
        '{"text":"again.","start_ms":1900,"duration_ms":400,"confidence":1},' +
        '{"text":"Guten","start_ms":3000,"duration_ms":400,"confidence":0.8},' +
        '{"text":"Tag.","start_ms":3400,"duration_ms":500,"confidence":0.0001}]}',
    );
  });

  it('every flag, diarized: language and words per segment, none at top level', () => {
    const t = shapeTranscript(
      result,
      params({ diarize: true, include_timestamps: true, include_words: true, include_language: true, include_confidence: true }),
    );
    expect(Object.keys(t)).toEqual(['text', 'start_ms', 'duration_ms', 'segments']);
    expect(t.segments?.map((s) => [s.speaker_id, s.language, s.words?.map((w) => w.text)])).toEqual([
      [0, 'en', ['Hello', 'there.']],
      [1, 'en', ['Hi', 'again.']],
      [0, 'de', ['Guten', 'Tag.']],
    ]);
    expect(Object.keys(t.segments?.[1] ?? {})).toEqual(['text', 'speaker_id', 'language', 'start_ms', 'duration_ms', 'words']);
    expect(Object.keys(t.segments?.[1]?.words?.[0] ?? {})).toEqual(['text', 'start_ms', 'duration_ms', 'confidence']);
  });
});

/** Expected keys, written from the spec's tables. */
function expectedKeys(f: TranscriptionParams) {
  const top = ['text'];
  if (f.include_language && !f.diarize) top.push('language');
  if (f.include_timestamps) top.push('start_ms', 'duration_ms');
  if (f.include_words && !f.diarize) top.push('words');
  if (f.diarize) top.push('segments');
  const seg = ['text', 'speaker_id'];
  if (f.include_language) seg.push('language');
  if (f.include_timestamps) seg.push('start_ms', 'duration_ms');
  if (f.include_words) seg.push('words');
  const w = ['text'];
  if (f.include_timestamps) w.push('start_ms', 'duration_ms');
  if (f.include_confidence) w.push('confidence');
  return { top, seg, w };
}

const FLAGS = ['include_timestamps', 'include_words', 'include_language', 'include_confidence', 'diarize'] as const;
const combos = Array.from({ length: 1 << FLAGS.length }, (_, mask) =>
  params(Object.fromEntries(FLAGS.map((f, i) => [f, (mask & (1 << i)) !== 0]))),
);

describe('field presence for all 32 flag combinations', () => {
  it.each(combos.map((p) => [FLAGS.filter((f) => p[f]).join('+') || 'none', p] as const))('%s', (_, p) => {
    const t = shapeTranscript(result, p);
    const want = expectedKeys(p);
    expect(Object.keys(t)).toEqual(want.top);
    const segments = t.segments ?? [];
    const words = [...(t.words ?? []), ...segments.flatMap((s) => s.words ?? [])];
    for (const s of segments) expect(Object.keys(s)).toEqual(want.seg);
    for (const w of words) expect(Object.keys(w)).toEqual(want.w);
    if (p.include_words) expect(words).toHaveLength(6);
    for (const w of words) {
      if (w.start_ms !== undefined) {
        expect(Number.isInteger(w.start_ms) && Number.isInteger(w.duration_ms)).toBe(true);
        expect(w.duration_ms).toBeGreaterThanOrEqual(1);
      }
      if (w.confidence !== undefined) {
        expect(w.confidence).toBeGreaterThan(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe('times', () => {
  const one = (words: EngineWord[], durationMs: number): EngineResult => ({
    durationMs,
    model: 'whisper-base',
    backend: 'webgpu',
    segments: [segment(0, 'en', words)],
  });
  const timed = params({ include_words: true, include_timestamps: true });

  it('a zero-length word lasts 1 ms', () => {
    expect(shapeTranscript(one([word('a', 500.2, 500.3, 0.5)], 1000), timed).words).toEqual([
      { text: 'a', start_ms: 500, duration_ms: 1 },
    ]);
  });

  it('a zero-length word at the very end moves back instead of leaving the audio', () => {
    expect(shapeTranscript(one([word('a', 1000, 1000, 0.5)], 1000), timed).words).toEqual([
      { text: 'a', start_ms: 999, duration_ms: 1 },
    ]);
  });

  it('clamps times into the audio', () => {
    expect(shapeTranscript(one([word('a', -20, 300, 0.5), word('b', 900, 1300, 0.5)], 1000), timed).words).toEqual([
      { text: 'a', start_ms: 0, duration_ms: 300 },
      { text: 'b', start_ms: 900, duration_ms: 100 },
    ]);
  });

  it('adjacent words stay adjacent after rounding', () => {
    const t = shapeTranscript(one([word('a', 10.5, 20.5, 0.5), word('b', 20.5, 31.49, 0.5)], 1000), timed);
    const [a, b] = t.words ?? [];
    expect((a?.start_ms ?? 0) + (a?.duration_ms ?? 0)).toBe(b?.start_ms);
  });

  it('rejects a non-finite engine time instead of emitting null', () => {
    expect(() => shapeTranscript(one([word('a', Number.NaN, 10, 0.5)], 1000), timed)).toThrow(/non-finite/);
  });
});

describe('language', () => {
  const lang = params({ include_language: true });
  it('the top-level language is the one with the most speech time, not the most segments', () => {
    const r: EngineResult = {
      ...result,
      segments: [
        segment(0, 'en', [word('a', 0, 500, 1)]),
        segment(0, 'en', [word('b', 600, 1000, 1)]),
        segment(0, 'de', [word('c', 1000, 3000, 1)]),
      ],
    };
    expect(shapeTranscript(r, lang).language).toBe('de');
  });

  it('with no speech: the first candidate, else en', () => {
    const silent: EngineResult = { ...result, segments: [] };
    expect(shapeTranscript(silent, lang)).toEqual({ text: '', language: 'en' });
    expect(shapeTranscript(silent, { ...lang, language: ['fr', 'de'] }).language).toBe('fr');
    expect(shapeTranscript(silent, params({ diarize: true }))).toEqual({ text: '', segments: [] });
  });
});

describe('text', () => {
  it('trims, joins with single spaces and drops empty segments and words', () => {
    const r: EngineResult = {
      ...result,
      segments: [
        segment(0, 'en', [word('  Yes ', 0, 100, 0.9)], '  Yes  '),
        segment(1, 'en', [word(' ', 100, 200, 0.9)], '   '),
        segment(0, 'en', [word(' no', 200, 300, 0.9)], ' no'),
      ],
    };
    const t = shapeTranscript(r, params({ diarize: true, include_words: true }));
    expect(t).toStrictEqual({ text: 'Yes no', segments: [{ text: 'Yes no', speaker_id: 0, words: [{ text: 'Yes' }, { text: 'no' }] }] });
  });
});
