import { describe, expect, it } from 'vitest';
import type { EngineSegment, EngineToken, EngineWord } from '../../engine/protocol';
import { attributeSpeakers, speakerForSpan } from '../../engine/speakers/assign';
import type { SpeakerEmbedding } from '../../engine/speakers/embed';
import { renumberTurns, speakerTurns, type SpeakerTurn } from '../../engine/speakers/turns';

const SR = 16_000;
const A = Float32Array.of(1, 0);
const B = Float32Array.of(0, 1);
const piece = (startS: number, endS: number, vector: Float32Array): SpeakerEmbedding => ({
  startSample: startS * SR,
  endSample: endS * SR,
  vector,
});

describe('speakerTurns', () => {
  it('splits a region where the pieces change speaker, ids in order of first appearance', () => {
    // speaker "1" talks first in label space, so it must come out as 0
    const pieces = [piece(0, 1.5, B), piece(0.75, 2.25, B), piece(1.5, 3, B), piece(3, 4.5, A), piece(3.75, 5.25, A), piece(4.5, 6, A)];
    const turns = speakerTurns([{ startSample: 0, endSample: 6 * SR }], pieces, [1, 1, 1, 0, 0, 0]);
    expect(turns.map((t) => t.speaker)).toEqual([0, 1]);
    expect(turns[0]!.startMs).toBe(0);
    expect(turns[1]!.endMs).toBe(6000);
    expect(Math.abs(turns[0]!.endMs - 3000)).toBeLessThanOrEqual(20);
    expect(turns[1]!.startMs).toBe(turns[0]!.endMs);
  });

  it('gives a short region with no clustering piece the speaker of its own embedding', () => {
    const pieces = [piece(0, 1.5, A), piece(1.5, 3, A), piece(6, 7.5, B), piece(7.5, 9, B)];
    const short = [piece(4, 4.4, B)];
    const regions = [
      { startSample: 0, endSample: 3 * SR },
      { startSample: 4 * SR, endSample: 4.4 * SR },
      { startSample: 6 * SR, endSample: 9 * SR },
    ];
    const turns = speakerTurns(regions, pieces, [0, 0, 1, 1], short);
    expect(turns.map((t) => [t.startMs, t.endMs, t.speaker])).toEqual([
      [0, 3000, 0],
      [4000, 4400, 1],
      [6000, 9000, 1],
    ]);
  });

  it('gives a turn shorter than minTurnMs to its neighbour', () => {
    // one 0.1 s piece of B inside A speech: overlapping pieces outvote it except at its core
    const pieces = [piece(0, 2, A), piece(2, 2.1, B), piece(2.1, 4, A)];
    const turns = speakerTurns([{ startSample: 0, endSample: 4 * SR }], pieces, [0, 1, 0], [], { minTurnMs: 250 });
    expect(turns).toEqual([{ startMs: 0, endMs: 4000, speaker: 0 }]);
  });

  it('lets short frame embeddings move a turn change inside a piece (frameWeight)', () => {
    const pieces = [piece(0, 2, A), piece(2, 4, B), piece(4, 6, B)];
    const frames = [piece(0, 1, A), piece(1, 2, B), piece(2, 3, B)];
    const region = [{ startSample: 0, endSample: 6 * SR }];
    const without = speakerTurns(region, pieces, [0, 1, 1], [], { frameWeight: 0 }, frames);
    expect(without.map((t) => [t.startMs, t.speaker])).toEqual([
      [0, 0],
      [2000, 1],
    ]);
    // weighted above the pieces, the frame over 1-2 s says B: the change moves to 1 s
    const withFrames = speakerTurns(region, pieces, [0, 1, 1], [], { frameWeight: 0.6 }, frames);
    expect(withFrames.map((t) => [t.startMs, t.speaker])).toEqual([
      [0, 0],
      [1000, 1],
    ]);
  });

  it('reads frames and pieces handed over in any order as if in time order', () => {
    const pieces = [piece(0, 2, A), piece(2, 4, B), piece(4, 6, B)];
    const frames = [piece(0, 1, A), piece(1, 2, B), piece(2, 3, B), piece(3, 4, A), piece(4, 5, B)];
    const region = [{ startSample: 0, endSample: 6 * SR }];
    const inOrder = speakerTurns(region, pieces, [0, 1, 1], [], { frameWeight: 0.6 }, frames);
    // later windows first, as when the diarizer's own windows fill what the transcription's left out
    const order = [4, 2, 0, 3, 1];
    const shuffled = speakerTurns(region, [pieces[2]!, pieces[0]!, pieces[1]!], [1, 0, 1], [], { frameWeight: 0.6 }, order.map((i) => frames[i]!));
    expect(shuffled).toEqual(inOrder);
    expect(inOrder.length).toBeGreaterThan(2);
  });

  it('renumberTurns sorts by time and renames by first appearance', () => {
    const turns: SpeakerTurn[] = [
      { startMs: 5, endMs: 6, speaker: 0 },
      { startMs: 0, endMs: 1, speaker: 3 },
    ];
    expect(renumberTurns(turns).map((t) => t.speaker)).toEqual([0, 1]);
  });
});

const turns: SpeakerTurn[] = [
  { startMs: 0, endMs: 1000, speaker: 0 },
  { startMs: 1000, endMs: 2000, speaker: 1 },
  { startMs: 2500, endMs: 3000, speaker: 0 },
];

describe('speakerForSpan', () => {
  it('gives a straddling span to the speaker holding most of its time', () => {
    expect(speakerForSpan(turns, 800, 1100)).toBe(0);
    expect(speakerForSpan(turns, 900, 1300)).toBe(1);
  });

  it('gives a span in a gap to the nearest turn, and -1 with no turns', () => {
    expect(speakerForSpan(turns, 2100, 2200)).toBe(1);
    expect(speakerForSpan(turns, 2350, 2450)).toBe(0);
    expect(speakerForSpan([], 0, 10)).toBe(-1);
  });
});

describe('attributeSpeakers', () => {
  const word = (text: string, startMs: number, endMs: number): EngineWord => ({ text, startMs, endMs, confidence: 0.9, speaker: 0 });
  const token = (text: string, startMs: number, endMs: number): EngineToken => ({ id: 1, text, startMs, endMs, probability: 0.9 });
  const segment: EngineSegment = {
    startMs: 100,
    endMs: 1900,
    text: 'Hello there. Yes, hi.',
    language: 'en',
    speaker: 0,
    tokens: [token(' Hello', 100, 500), token(' there.', 500, 900), token(' Yes,', 1100, 1400), token(' hi.', 1400, 1900)],
    words: [word('Hello', 100, 500), word('there.', 500, 1050), word('Yes,', 1100, 1400), word('hi.', 1400, 1900)],
  };

  it('splits a segment at the speaker change between its words, pieces timed by their turns', () => {
    const out = attributeSpeakers([segment], turns);
    expect(out.map((s) => [s.text, s.speaker, s.startMs, s.endMs])).toEqual([
      ['Hello there.', 0, 0, 1000],
      ['Yes, hi.', 1, 1000, 2000],
    ]);
    expect(out[0]!.tokens.map((t) => t.text)).toEqual([' Hello', ' there.']);
    expect(out[1]!.words.every((w) => w.speaker === 1)).toBe(true);
    expect(out[1]!.language).toBe('en');
  });

  it('numbers speakers by first appearance in the transcript', () => {
    const late: EngineSegment = { ...segment, startMs: 1200, endMs: 1900, tokens: [], words: [word('Yes,', 1200, 1900)], text: 'Yes,' };
    const out = attributeSpeakers([late, { ...segment, words: [], tokens: [], startMs: 0, endMs: 900 }], turns);
    expect(out.map((s) => s.speaker)).toEqual([0, 1]);
  });
});
