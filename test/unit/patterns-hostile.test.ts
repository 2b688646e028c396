import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { compilePattern, type CompiledPattern } from '../../src/api/patterns';
import { PatternMatcher } from '../../engine/biasing/patterns/pattern-matcher';
import {
  applyPatterns,
  applyPatternsToWords,
  findPatternSpans,
  mayBeCodeWord,
  spokenCodeWord,
} from '../../engine/biasing/patterns/spoken-patterns';

const DIGITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
/** The most ambiguous pattern the 32-character bound allows: 8^4 ways to split 32 digits. */
const AMBIGUOUS = '([0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]){4}';
/** Names on Object.prototype: a plain-object dictionary "has" them. */
const PROTOTYPE_WORDS = [
  'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf',
  'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__lookupSetter__', 'prototype',
];

function timed<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const out = f();
  return [out, performance.now() - t0];
}

/** A seeded generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

describe('an ambiguous pattern is read in bounded time', () => {
  it(`${AMBIGUOUS} on 24 spoken digits (a backtracking reader ran for minutes)`, () => {
    const digits = Array.from({ length: 24 }, (_, i) => (i * 7) % 10);
    const text = `my number is ${digits.map((d) => DIGITS[d]).join(' ')}. Thanks`;
    const [out, ms] = timed(() => applyPatterns(text, [compilePattern(AMBIGUOUS)]));
    expect(out).toBe(`my number is ${digits.join('')}. Thanks`);
    expect(ms).toBeLessThan(1000);
  });

  it('writes at most 32 digits of a longer run, and leaves what cannot match', () => {
    const digits = Array.from({ length: 33 }, (_, i) => (i * 3) % 10);
    const [out, ms] = timed(() => applyPatterns(digits.map((d) => DIGITS[d]).join(' '), [compilePattern(AMBIGUOUS)]));
    expect(out).toBe(`${digits.slice(0, 32).join('')} ${DIGITS[digits[32]!]}`);
    expect(ms).toBeLessThan(1000);
  });

  it('50 patterns of the worst kind that never match, on 120 spoken digits', { timeout: 30_000 }, () => {
    // each pattern is read to its end on every run before failing at the last element
    const worst = [
      '([0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]){3}X',
      '(((([0-9]?){2}){2}){2}){3}[0-9]X',
      '([0-9A-Z]?[0-9]?-?){10}X',
      '((-?[0-9]?)?){15}X',
      '([0-9]?){31}X',
      '( ?-?[0-9]?[A-Z0-9]?){7}X',
    ].map(compilePattern);
    const patterns = Array.from({ length: 50 }, (_, i) => worst[i % worst.length]!);
    const text = Array.from({ length: 120 }, (_, i) => DIGITS[(i * 7) % 10]).join(' ');
    const [out, ms] = timed(() => applyPatterns(text, patterns));
    expect(out).toBe(text);
    expect(ms).toBeLessThan(5000);
  });

  it('calls the checkpoint while reading, and stops when it throws', () => {
    const text = Array.from({ length: 40 }, (_, i) => DIGITS[i % 10]).join(' ');
    let calls = 0;
    applyPatterns(text, [compilePattern(AMBIGUOUS)], () => void calls++);
    // at least once per spoken digit read
    expect(calls).toBeGreaterThanOrEqual(40);
    const cancelled = new Error('cancelled');
    let left = Math.floor(calls / 2);
    const checkpoint = () => {
      if (--left < 0) throw cancelled;
    };
    expect(() => applyPatterns(text, [compilePattern(AMBIGUOUS)], checkpoint)).toThrow(cancelled);
    expect(() => applyPatternsToWords(text.split(' ').map((t) => ({ text: t, startMs: 0, endMs: 0, confidence: 1 })), [compilePattern(AMBIGUOUS)], checkpoint)).toThrow(cancelled);
  });
});

describe("words named like Object.prototype's members", () => {
  const P = [compilePattern('[A-Z]{3}[0-9]{3}')];

  it.each(PROTOTYPE_WORDS)('%s inside and around a code neither crashes nor joins it', (w) => {
    expect(applyPatterns(`my code is A B C ${w} one two three`, P)).toBe(`my code is A B C ${w} one two three`);
    expect(applyPatterns(`my code is A B C one two three ${w}`, P)).toBe(`my code is ABC123 ${w}`);
    expect(applyPatterns(`${w} A B C one two three`, P)).toBe(`${w} ABC123`);
    expect(applyPatterns(`${w.toUpperCase()} ${w}-${w} ${w}.`, P)).toBe(`${w.toUpperCase()} ${w}-${w} ${w}.`);
    expect(spokenCodeWord(w)).toBeNull();
    expect(mayBeCodeWord(w)).toBe(false);
    const words = ['A', 'B', 'C', w, 'one', 'two', 'three'].map((text, i) => ({ text, startMs: i, endMs: i + 1, confidence: 1 }));
    expect(applyPatternsToWords(words, P).map((x) => x.text)).toEqual(['A', 'B', 'C', w, 'one', 'two', 'three']);
  });
});

/** A random pattern: mostly the grammar's pieces, some hostile characters, quantifiers past the bound. */
function randomPattern(r: ReturnType<typeof random>, depth = 0): string {
  let out = '';
  const n = 1 + r.int(5);
  for (let i = 0; i < n; i++) {
    const x = r.next();
    if (x < 0.3) out += r.pick(['[0-9]', '[A-Z]', '[A-Z0-9]', '[A-F]', '[0-4]', '[5-9X]']);
    else if (x < 0.45) out += r.pick(['A', 'M', 'Z', 'X', '7', '0', 'O', 'b']);
    else if (x < 0.55) out += r.pick([' ', '-']);
    else if (x < 0.75 && depth < 3) out += `(${randomPattern(r, depth + 1)})`;
    else if (x < 0.8) out += r.pick(['*', '+', '.', '|', '^', '$', '\\d', '(', ')', '[', ']', '{', '}', '<|endoftext|>', 'é', '\u202e', '\u0000']);
    else out += '[0-9]';
    const q = r.next();
    if (q < 0.3) out += '?';
    else if (q < 0.55) {
      const m = r.int(6);
      out += r.next() < 0.5 ? `{${m + r.int(4)}}` : `{${m},${m + r.int(40)}}`;
    } else if (q < 0.58) out += r.pick(['{3,}', '{,3}', '*', '+', '??', '{2}{3}']);
  }
  return out;
}

const TEXT_WORDS = [
  ...DIGITS, 'oh', 'double', 'triple', 'dash', 'hyphen', 'twenty', 'ninety', 'fifteen', 'eleven',
  'A', 'B', 'M', 'Z', 'X', 'O', 'alpha', 'bravo', 'x-ray', 'zulu', 'ex', 'wye', 'for', 'to', 'be', 'see',
  'the', 'code', 'is', 'a', 'I', 'mz', '4', '47', 'AMZ', 'b-75Q', '4-7-1', 'a.m.z.', ...PROTOTYPE_WORDS,
];

/** Random spoken-code text: mostly digit words, with letters, repeat words, punctuation and odd words. */
function randomText(r: ReturnType<typeof random>): string {
  const n = r.int(45);
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = r.next() < 0.6 ? r.pick(DIGITS) : r.pick(TEXT_WORDS);
    words.push(r.next() < 0.1 ? `${w}${r.pick([',', '.', '?', '!'])}` : w);
  }
  return words.join(r.next() < 0.9 ? ' ' : '  ');
}

describe('random patterns on random spoken codes (seeded fuzz)', () => {
  it('throw nothing but ApiError, write only what a pattern matches, and stay fast', () => {
    const r = random(33);
    let tried = 0;
    let refused = 0;
    let texts = 0;
    let spans = 0;
    let slowest = 0;
    const t0 = performance.now();
    for (let round = 0; round < 400; round++) {
      const patterns: CompiledPattern[] = [];
      for (let k = 0; k < 1 + r.int(3); k++) {
        const source = randomPattern(r);
        tried++;
        try {
          patterns.push(compilePattern(source));
        } catch (e) {
          // only the validator's own 400, and its detail names the pattern
          expect(e, source).toBeInstanceOf(ApiError);
          expect((e as ApiError).code).toBe('invalid_query_parameter');
          expect((e as ApiError).detail).toContain(source.length > 256 ? 'characters long' : JSON.stringify(source));
          refused++;
        }
      }
      if (patterns.length === 0) continue;
      const matcher = new PatternMatcher(patterns);
      for (let t = 0; t < 5; t++) {
        const text = randomText(r);
        texts++;
        const [found, ms] = timed(() => findPatternSpans(text.split(/\s+/), patterns));
        slowest = Math.max(slowest, ms);
        for (const s of found) {
          // the linear-time matcher, not the backtracking RegExp, checks the written form
          expect(matcher.matches(s.text), `${s.text} from ${JSON.stringify(text)} under ${s.pattern}`).toBe(true);
          spans++;
        }
        expect(() => applyPatterns(text, patterns)).not.toThrow();
      }
    }
    const total = performance.now() - t0;
    console.log(`fuzz: ${tried} patterns (${refused} refused), ${texts} texts, ${spans} codes written; slowest text ${slowest.toFixed(1)} ms, all ${total.toFixed(0)} ms`);
    expect(refused).toBeGreaterThan(50);
    expect(tried - refused).toBeGreaterThan(100);
    expect(spans).toBeGreaterThan(50);
    expect(slowest).toBeLessThan(1000);
    expect(total).toBeLessThan(30_000);
  }, 60_000);
});
