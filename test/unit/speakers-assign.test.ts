import { describe, expect, it } from 'vitest';
import type { EngineSegment, EngineToken, EngineWord } from '../../engine/protocol';
import { DEFAULT_TRANSCRIPTION_PARAMS } from '../../src/api/params';
import { MAX_MERGE_GAP_MS, shapeTranscript } from '../../src/api/transcript';
import { attributeSpeakers, turnForSpan } from '../../engine/speakers/assign';
import { oneSpeakerTurns } from '../../engine/speakers/diarize';
import type { SpeakerTurn } from '../../engine/speakers/turns';

const word = (text: string, startMs: number, endMs: number): EngineWord => ({ text, startMs, endMs, confidence: 0.9, speaker: 0 });
const token = (text: string, startMs: number, endMs: number): EngineToken => ({ id: 1, text, startMs, endMs, probability: 0.9 });

/** A Whisper segment over `words`, its own times given (Whisper's, possibly off), one token per word. */
function seg(words: EngineWord[], startMs = words[0]!.startMs, endMs = words[words.length - 1]!.endMs): EngineSegment {
  return {
    startMs,
    endMs,
    text: words.map((w) => w.text).join(' '),
    language: 'en',
    speaker: 0,
    tokens: words.map((w) => token(` ${w.text}`, w.startMs, w.endMs)),
    words,
  };
}

const span = (s: EngineSegment) => [s.text, s.speaker, s.startMs, s.endMs];

describe('turnForSpan', () => {
  const turns: SpeakerTurn[] = [
    { startMs: 0, endMs: 1000, speaker: 0 },
    { startMs: 1000, endMs: 2000, speaker: 1 },
    { startMs: 3000, endMs: 4000, speaker: 0 },
  ];

  it('picks the turn of the speaker holding most of the span, else the nearest turn', () => {
    expect(turnForSpan(turns, 900, 1300)).toBe(1);
    expect(turnForSpan(turns, 800, 1100)).toBe(0);
    expect(turnForSpan(turns, 2600, 2900)).toBe(2);
    expect(turnForSpan(turns, 2000, 2200)).toBe(1);
    expect(turnForSpan([], 0, 10)).toBe(-1);
  });

  it('restricted to one speaker, picks that speaker\'s turn even where another holds the span', () => {
    expect(turnForSpan(turns, 1200, 1500, 0)).toBe(0);
    expect(turnForSpan(turns, 1800, 2900, 0)).toBe(2);
    expect(turnForSpan(turns, 0, 10, 7)).toBe(-1);
  });

  it('sums a speaker\'s time over several turns before choosing the speaker', () => {
    const split: SpeakerTurn[] = [
      { startMs: 0, endMs: 300, speaker: 0 },
      { startMs: 300, endMs: 700, speaker: 1 },
      { startMs: 700, endMs: 1000, speaker: 0 },
    ];
    // speaker 0 holds 600 ms of [0, 1000), speaker 1 holds 400 ms: one of speaker 0's turns
    expect(split[turnForSpan(split, 0, 1000)]!.speaker).toBe(0);
  });
});

describe('attributeSpeakers: segment times from the turns', () => {
  it('times a one-speaker segment by its turn, not by Whisper\'s segment times', () => {
    const turns: SpeakerTurn[] = [{ startMs: 400, endMs: 2600, speaker: 0 }];
    const out = attributeSpeakers([seg([word('Hello', 900, 1300), word('world.', 1300, 1700)], 1000, 3500)], turns);
    expect(out.map(span)).toEqual([['Hello world.', 0, 400, 2600]]);
  });

  it('splits at the word where the speaker changes, each piece spanning its own turn', () => {
    const turns: SpeakerTurn[] = [
      { startMs: 0, endMs: 1000, speaker: 3 },
      { startMs: 1000, endMs: 2000, speaker: 1 },
    ];
    const s = seg([word('Hello', 100, 500), word('there.', 500, 1050), word('Yes,', 1100, 1400), word('hi.', 1400, 1900)], 100, 1900);
    const out = attributeSpeakers([s], turns);
    expect(out.map(span)).toEqual([
      ['Hello there.', 0, 0, 1000],
      ['Yes, hi.', 1, 1000, 2000],
    ]);
    expect(out[0]!.tokens.map((t) => t.text)).toEqual([' Hello', ' there.']);
    expect(out[1]!.tokens.map((t) => t.text)).toEqual([' Yes,', ' hi.']);
    expect(out[1]!.words.map((w) => w.speaker)).toEqual([1, 1]);
  });

  it('splits one speaker\'s segment at a pause between two of that speaker\'s turns', () => {
    const turns: SpeakerTurn[] = [
      { startMs: 0, endMs: 1200, speaker: 0 },
      { startMs: 3000, endMs: 4500, speaker: 0 },
    ];
    const words = [word('One', 200, 600), word('two.', 600, 1100), word('Three', 3200, 3700), word('four.', 3700, 4300)];
    const out = attributeSpeakers([seg(words, 0, 4400)], turns);
    expect(out.map(span)).toEqual([
      ['One two.', 0, 0, 1200],
      ['Three four.', 0, 3000, 4500],
    ]);
    expect(out.flatMap((s) => s.words.map((w) => w.text))).toEqual(words.map((w) => w.text));
  });

  it('Whisper segments inside one turn meet at the next segment\'s first word and cover the turn', () => {
    const turns: SpeakerTurn[] = [{ startMs: 0, endMs: 5000, speaker: 0 }];
    const a = seg([word('First', 300, 800), word('part.', 800, 1500)]);
    const b = seg([word('Second', 2100, 2600), word('part.', 2600, 4100)]);
    const out = attributeSpeakers([a, b], turns);
    expect(out.map(span)).toEqual([
      ['First part.', 0, 0, 2100],
      ['Second part.', 0, 2100, 5000],
    ]);
  });

  it('a word whose time falls in a gap joins the nearest turn; a segment without words keeps its times', () => {
    const turns: SpeakerTurn[] = [
      { startMs: 0, endMs: 1000, speaker: 0 },
      { startMs: 2000, endMs: 3000, speaker: 1 },
    ];
    const out = attributeSpeakers(
      [seg([word('Hi.', 1100, 1300)]), seg([word('Hey.', 1750, 1900), word('You.', 2100, 2500)]), { ...seg([word('x', 2600, 2700)]), words: [], tokens: [], text: '[noise]' }],
      turns,
    );
    expect(out.map(span)).toEqual([
      ['Hi.', 0, 0, 1000],
      ['Hey. You.', 1, 2000, 3000],
      ['[noise]', 1, 2600, 2700],
    ]);
  });

  it('with no turns leaves segments as they are, speaker 0', () => {
    const s = seg([word('Alone.', 100, 900)], 0, 1000);
    expect(attributeSpeakers([s], []).map(span)).toEqual([['Alone.', 0, 0, 1000]]);
  });
});

describe('diarized segments through the shaper', () => {
  const params = { ...DEFAULT_TRANSCRIPTION_PARAMS, diarize: true, include_timestamps: true, include_words: true };

  it('keeps one speaker\'s turns apart across a long pause, merges across a short one, every word in exactly one segment, ids 0-indexed', () => {
    const turns: SpeakerTurn[] = [
      { startMs: 0, endMs: 1000, speaker: 4 },
      { startMs: 1000, endMs: 2000, speaker: 2 },
      { startMs: 2000 + MAX_MERGE_GAP_MS + 1, endMs: 4000, speaker: 2 },
      { startMs: 4000 + MAX_MERGE_GAP_MS, endMs: 6000, speaker: 2 },
    ];
    const words = [word('A', 100, 900), word('b', 1100, 1900), word('c', 2700, 3800), word('d', 4600, 5900)];
    const engine = attributeSpeakers([seg(words.slice(0, 2)), seg(words.slice(2))], turns);
    const t = shapeTranscript({ durationMs: 7000, model: 'whisper-base', backend: 'wasm', segments: engine }, params);
    const late = 2000 + MAX_MERGE_GAP_MS + 1;
    // b | c: a pause one ms longer than the limit; c | d: exactly the limit, merged
    expect(t.segments!.map((s) => [s.text, s.speaker_id, s.start_ms, s.duration_ms])).toEqual([
      ['A', 0, 0, 1000],
      ['b', 1, 1000, 1000],
      ['c d', 1, late, 6000 - late],
    ]);
    expect(t.segments!.flatMap((s) => s.words!.map((w) => w.text))).toEqual(['A', 'b', 'c', 'd']);
  });
});

describe('oneSpeakerTurns (max_speakers=1)', () => {
  it('gives the padded diarization regions as speaker-0 turns, apart across a long pause', () => {
    // Silero frames of 512 samples (32 ms): speech 1.0-3.0 s, silence, speech 5.0-6.0 s, of 8 s
    const frames = Math.ceil((8 * 16_000) / 512);
    const probs = new Float32Array(frames);
    const at = (s: number) => Math.round((s * 16_000) / 512);
    probs.fill(0.9, at(1), at(3));
    probs.fill(0.9, at(5), at(6));
    const turns = oneSpeakerTurns(probs, 8 * 16_000);
    expect(turns).toHaveLength(2);
    expect(turns.every((t) => t.speaker === 0)).toBe(true);
    // 400 ms padding on each side, to within one frame
    expect(Math.abs(turns[0]!.startMs - 600)).toBeLessThanOrEqual(40);
    expect(Math.abs(turns[0]!.endMs - 3400)).toBeLessThanOrEqual(40);
    expect(Math.abs(turns[1]!.startMs - 4600)).toBeLessThanOrEqual(40);
    expect(Math.abs(turns[1]!.endMs - 6400)).toBeLessThanOrEqual(40);
  });
});
