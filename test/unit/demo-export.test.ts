import { describe, expect, it } from 'vitest';
import type { Transcript } from '../../src/api/transcript';
import {
  clock,
  cuesFromWords,
  exportTranscript,
  hasTimes,
  MissingTimesError,
  toPlainText,
  toSrt,
  toVtt,
  transcriptCues,
  wrapLines,
} from '../../demo/export';

const words: Transcript = {
  text: 'And so my fellow Americans, ask not what your country can do for you.',
  start_ms: 0,
  duration_ms: 11000,
  words: [
    { text: 'And', start_ms: 300, duration_ms: 200 },
    { text: 'so', start_ms: 500, duration_ms: 300 },
    { text: 'my', start_ms: 800, duration_ms: 200 },
    { text: 'fellow', start_ms: 1000, duration_ms: 400 },
    { text: 'Americans,', start_ms: 1400, duration_ms: 800 },
    { text: 'ask', start_ms: 3200, duration_ms: 300 },
    { text: 'not.', start_ms: 3500, duration_ms: 500 },
    { text: 'what', start_ms: 5000, duration_ms: 200 },
  ],
};

const diarized: Transcript = {
  text: 'Hello there. Hi, how are you?',
  start_ms: 0,
  duration_ms: 3_725_000,
  segments: [
    { text: 'Hello there.', speaker_id: 0, start_ms: 1000, duration_ms: 1500 },
    { text: 'Hi, <how> are you?', speaker_id: 1, start_ms: 3_723_456, duration_ms: 1000 },
  ],
};

describe('clock', () => {
  it('formats hours, minutes, seconds and milliseconds with the given separator', () => {
    expect(clock(0, ',')).toBe('00:00:00,000');
    expect(clock(3_723_456, ',')).toBe('01:02:03,456');
    expect(clock(59_999, '.')).toBe('00:00:59.999');
    expect(clock(36_000_000 * 3, '.')).toBe('30:00:00.000');
  });
  it('rounds to whole milliseconds and clamps negatives to zero', () => {
    expect(clock(1.6, ',')).toBe('00:00:00,002');
    expect(clock(-5, ',')).toBe('00:00:00,000');
  });
});

describe('cues', () => {
  it('group words into cues that end at sentence ends', () => {
    const cues = transcriptCues(words);
    expect(cues.map((c) => c.text)).toEqual(['And so my fellow Americans, ask not.', 'what']);
    expect(cues[0]).toMatchObject({ startMs: 300, endMs: 4000 });
    expect(cues[1]).toMatchObject({ startMs: 5000, endMs: 5200 });
  });
  it('split before a cue would pass the character or duration limit', () => {
    const w = words.words!.map((x) => ({ ...x, start_ms: x.start_ms!, duration_ms: x.duration_ms! }));
    expect(cuesFromWords(w, undefined, { maxChars: 12, maxMs: 60_000 }).map((c) => c.text)).toEqual([
      'And so my',
      'fellow',
      'Americans,',
      'ask not.',
      'what',
    ]);
    expect(cuesFromWords(w, 2, { maxChars: 500, maxMs: 1500 }).map((c) => [c.text, c.speaker])).toEqual([
      ['And so my fellow', 2],
      ['Americans,', 2],
      ['ask not.', 2],
      ['what', 2],
    ]);
  });
  it('use one cue per diarized segment, with its speaker', () => {
    expect(transcriptCues(diarized)).toEqual([
      { startMs: 1000, endMs: 2500, text: 'Hello there.', speaker: 0 },
      { startMs: 3_723_456, endMs: 3_724_456, text: 'Hi, <how> are you?', speaker: 1 },
    ]);
  });
  it('cover the whole recording when there are times but no words', () => {
    expect(transcriptCues({ text: 'Ten of clubs.', start_ms: 0, duration_ms: 1100 })).toEqual([
      { startMs: 0, endMs: 1100, text: 'Ten of clubs.' },
    ]);
    expect(transcriptCues({ text: '', start_ms: 0, duration_ms: 1100 })).toEqual([]);
  });
  it('never end where they start', () => {
    const cues = transcriptCues({ text: 'a', start_ms: 0, duration_ms: 10, words: [{ text: 'a', start_ms: 5, duration_ms: 0 }] });
    expect(cues).toEqual([{ startMs: 5, endMs: 6, text: 'a' }]);
  });
  it('refuse a transcript without times', () => {
    expect(hasTimes({ text: 'x' })).toBe(false);
    expect(hasTimes({ text: 'x', segments: [{ text: 'x', speaker_id: 0 }] })).toBe(false);
    expect(() => transcriptCues({ text: 'x' })).toThrow(MissingTimesError);
    expect(() => toSrt({ text: 'x', segments: [{ text: 'x', speaker_id: 0 }] })).toThrow(/timestamps/);
  });
});

describe('SRT', () => {
  it('numbers cues from 1 with comma milliseconds and a blank line between cues', () => {
    expect(toSrt(words)).toBe(
      '1\n00:00:00,300 --> 00:00:04,000\nAnd so my fellow Americans, ask not.\n\n2\n00:00:05,000 --> 00:00:05,200\nwhat\n',
    );
  });
  it('names speakers', () => {
    expect(toSrt(diarized)).toBe(
      '1\n00:00:01,000 --> 00:00:02,500\n[Speaker 1] Hello there.\n\n2\n01:02:03,456 --> 01:02:04,456\n[Speaker 2] Hi, <how> are you?\n',
    );
  });
});

describe('WebVTT', () => {
  it('starts with the WEBVTT header, uses dot milliseconds, voice tags, and escapes markup', () => {
    expect(toVtt(diarized)).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\n<v Speaker 1>Hello there.\n\n01:02:03.456 --> 01:02:04.456\n<v Speaker 2>Hi, &lt;how&gt; are you?\n',
    );
  });
});

describe('wrapLines', () => {
  it('leaves short text alone and breaks long text at the space nearest the middle', () => {
    expect(wrapLines('short line')).toBe('short line');
    const long = 'ask not what your country can do for you, ask what you can do';
    const wrapped = wrapLines(long);
    const [a, b] = wrapped.split('\n');
    expect(`${a} ${b}`).toBe(long);
    expect(Math.abs(a!.length - b!.length)).toBeLessThanOrEqual(6);
  });
});

describe('plain text and JSON', () => {
  it('writes one line per speaker turn when diarized, else the text', () => {
    expect(toPlainText(diarized)).toBe('Speaker 1: Hello there.\nSpeaker 2: Hi, <how> are you?\n');
    expect(toPlainText({ text: 'Ten of clubs.' })).toBe('Ten of clubs.\n');
    expect(toPlainText({ text: '' })).toBe('');
  });
  it('keeps the JSON exactly as returned', () => {
    expect(JSON.parse(exportTranscript(diarized, 'json'))).toEqual(diarized);
    expect(exportTranscript({ text: 'x' }, 'json')).toBe('{\n  "text": "x"\n}\n');
  });
});
