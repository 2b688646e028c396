import { describe, expect, it } from 'vitest';
import type { Segment } from '../../src/api/transcript';
import { timelineLanes } from '../../demo/speaker-timeline';

const seg = (speaker_id: number, start_ms: number, duration_ms: number): Segment => ({ text: 'x', speaker_id, start_ms, duration_ms });

describe('timelineLanes', () => {
  it('gives one lane per speaker, in id order, bars placed as shares of the recording', () => {
    const lanes = timelineLanes([seg(1, 2000, 1000), seg(0, 0, 2000), seg(1, 5000, 5000)], 10_000);
    expect(lanes.map((l) => l.speaker)).toEqual([0, 1]);
    expect(lanes[0]!.bars).toEqual([{ startMs: 0, endMs: 2000, left: 0, width: 20 }]);
    expect(lanes[1]!.bars.map((b) => [b.left, b.width])).toEqual([
      [20, 10],
      [50, 50],
    ]);
  });

  it('widens the scale when a segment ends past the given length, and is empty without timed segments', () => {
    const lanes = timelineLanes([seg(0, 0, 4000)], 2000);
    expect(lanes[0]!.bars[0]!.width).toBe(100);
    expect(timelineLanes([{ text: 'x', speaker_id: 0 }], 1000)).toEqual([]);
    expect(timelineLanes([], 1000)).toEqual([]);
  });
});
