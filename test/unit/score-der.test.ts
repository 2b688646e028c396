import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { diarizationError, oneSpeakerAtATime, parseRttm, type Turn } from '../../bench/score/der';

const t = (speaker: string, start: number, end: number): Turn => ({ speaker, start, end });

describe('diarizationError', () => {
  it('is 0 for the reference itself under other names, and maps the names', () => {
    const ref = [t('A', 0, 3), t('B', 3, 7), t('A', 8, 9)];
    const hyp = [t('1', 0, 3), t('0', 3, 7), t('1', 8, 9)];
    const r = diarizationError(ref, hyp, { collar: 0 });
    expect(r.der).toBe(0);
    expect([...r.mapping]).toEqual([
      ['A', '1'],
      ['B', '0'],
    ]);
  });

  it('counts a second speaker labelled as the first as confusion, less the collars', () => {
    const ref = [t('A', 0, 10), t('B', 10, 16)];
    const hyp = [t('X', 0, 16)];
    expect(diarizationError(ref, hyp, { collar: 0 }).der).toBeCloseTo(6 / 16, 9);
    // collars remove 0.25 at 0, 0.5 around 10 and 0.25 at 16: 15 s scored, B keeps 5.5 s
    const c = diarizationError(ref, hyp, { collar: 0.25 });
    expect(c.reference).toBeCloseTo(15, 9);
    expect(c.confusion).toBeCloseTo(5.5, 9);
    expect(c.der).toBeCloseTo(5.5 / 15, 9);
  });

  it('scores overlapping reference speech: one hypothesis speaker misses the other', () => {
    const r = diarizationError([t('A', 0, 10), t('B', 5, 10)], [t('X', 0, 10)], { collar: 0 });
    expect(r.reference).toBeCloseTo(15, 9);
    expect(r.missed).toBeCloseTo(5, 9);
    expect(r.confusion).toBeCloseTo(0, 9);
    expect(r.der).toBeCloseTo(1 / 3, 9);
  });

  it('counts hypothesis speech outside the reference as false alarm', () => {
    const r = diarizationError([t('A', 0, 5)], [t('X', 0, 8)], { collar: 0 });
    expect(r.falseAlarm).toBeCloseTo(3, 9);
    expect(r.der).toBeCloseTo(0.6, 9);
  });

  it('uses the optimal mapping where the greedy one is worse', () => {
    // A overlaps X 5 s and Y 4 s; B overlaps only X (4 s). Greedy A→X leaves B unmapped (8 s wrong);
    // the optimum A→Y, B→X leaves 5 s wrong.
    const ref = [t('A', 0, 9), t('B', 9, 13)];
    const hyp = [t('X', 0, 5), t('Y', 5, 9), t('X', 9, 13)];
    const r = diarizationError(ref, hyp, { collar: 0 });
    expect(r.mapping.get('A')).toBe('Y');
    expect(r.mapping.get('B')).toBe('X');
    expect(r.der).toBeCloseTo(5 / 13, 9);
  });

  it('scores only inside [from, to)', () => {
    const r = diarizationError([t('A', 0, 10)], [t('X', 0, 10), t('Y', 10, 20)], { collar: 0, from: 0, to: 10 });
    expect(r.der).toBe(0);
  });
});

describe('parseRttm', () => {
  it('reads the reference turns of an eval clip', () => {
    const turns = parseRttm(readFileSync(join(EVAL_DIR, 'diar/ami_dev00.rttm'), 'utf8'));
    expect(turns).toHaveLength(9);
    expect(turns[0]).toEqual({ file: 'ami_dev00', speaker: 'MEE009', start: 1.44, end: 1.44 + 11.872 });
    expect(new Set(turns.map((x) => x.speaker))).toEqual(new Set(['MEE009', 'MEE012']));
  });
});

describe('oneSpeakerAtATime', () => {
  it('keeps one speaker where two overlap, so its DER is the overlapped time alone', () => {
    const ref = [t('A', 0, 6), t('B', 4, 10), t('C', 12, 13)];
    const floor = oneSpeakerAtATime(ref);
    expect(floor).toEqual([t('A', 0, 6), t('B', 6, 10), t('C', 12, 13)]);
    const r = diarizationError(ref, floor, { collar: 0 });
    expect(r.missed).toBeCloseTo(2, 9);
    expect(r.falseAlarm + r.confusion).toBe(0);
    expect(r.der).toBeCloseTo(2 / 13, 9); // 13 s of speech, 2 of them the second voice
  });

  it('is the reference itself when nobody overlaps', () => {
    const ref = [t('A', 0, 3), t('B', 3, 7), t('A', 8, 9)];
    expect(oneSpeakerAtATime(ref)).toEqual(ref);
  });
});
