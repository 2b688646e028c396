import type { CompiledPattern, PatternNode } from '../../src/api/patterns';
import type { BiasVocabulary } from './trie';

/**
 * Decode-time help for `patterns`: Whisper's previous-text prompt carries one written example of each
 * pattern (" AMZ284, TK-5093."), so letters and digits spoken one by one tend to come out written as a
 * code ("AMZ471") rather than as words ("A, M, Z, four seven one"). The text rewrite in
 * spoken-patterns.ts still runs afterwards; this only makes its input closer to the written form.
 */

/** Digits and letters used to fill a pattern's classes: varied, so no example reads as a number word. */
const DIGITS = '2845193';
const LETTERS = 'QRXKDHTM';

/** One string the pattern matches: classes filled from DIGITS/LETTERS, optional parts included. */
export function patternExample(node: PatternNode): string {
  let d = 0;
  let l = 0;
  const fill = (n: PatternNode): string => {
    switch (n.kind) {
      case 'literal':
        return n.char;
      case 'separator':
        return n.char;
      case 'sequence':
        return n.items.map(fill).join('');
      case 'repeat': {
        const times = Math.max(1, n.min === n.max ? n.min : Math.max(n.min, Math.min(n.max, 3)));
        return Array.from({ length: times }, () => fill(n.node)).join('');
      }
      case 'class': {
        const hasDigit = n.ranges.some(([from]) => /[0-9]/.test(from));
        const hasLetter = n.ranges.some(([from]) => /[A-Z]/.test(from));
        const pickFrom = (pool: string, i: number) => {
          for (let k = 0; k < pool.length; k++) {
            const c = pool[(i + k) % pool.length]!;
            if (n.ranges.some(([from, to]) => c >= from && c <= to)) return c;
          }
          return n.ranges[0]![0];
        };
        if (hasDigit && (!hasLetter || d <= l)) return pickFrom(DIGITS, d++);
        return pickFrom(LETTERS, l++);
      }
    }
  };
  return fill(node);
}

/** Prompt ids (after <|startofprev|>) listing one example per pattern; none for no patterns. */
export function promptForPatterns(vocab: BiasVocabulary, patterns: readonly CompiledPattern[], maxTokens = 60): number[] {
  if (patterns.length === 0) return [];
  const examples = patterns.map((p) => patternExample(p.ast)).filter((e, i) => patterns[i]!.test(e));
  if (examples.length === 0) return [];
  const ids = vocab.encode(` ${examples.join(', ')}.`);
  return ids.length <= maxTokens ? ids : [];
}
