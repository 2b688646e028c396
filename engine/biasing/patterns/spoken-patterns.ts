import type { CompiledPattern, PatternNode } from '../../../src/api/patterns';

/**
 * Recovers codes spoken as letters and digits ("A M Z four seven one", "B seven double five Q",
 * "alpha bravo", "two nine oh four") into the written form a pattern describes ("AMZ471"), when and
 * only when the run of spoken symbols matches a pattern; everything else is left untouched.
 */

/** One spoken symbol: the characters it may stand for ("oh" is 0 or O). */
type Symbol = readonly string[];

/*
 * The word tables are Maps, looked up with get(): a word from the transcript is a key, and on a plain
 * object "constructor", "__proto__" or "toString" would find Object.prototype's members.
 */
const table = <T>(entries: Record<string, T>): ReadonlyMap<string, T> => new Map(Object.entries(entries));

const DIGIT_WORDS = table({
  zero: '0', oh: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
});
const TEENS = table({
  ten: '10', eleven: '11', twelve: '12', thirteen: '13', fourteen: '14', fifteen: '15', sixteen: '16', seventeen: '17', eighteen: '18', nineteen: '19',
});
const TENS = table({ twenty: '2', thirty: '3', forty: '4', fifty: '5', sixty: '6', seventy: '7', eighty: '8', ninety: '9' });
const NATO = table({
  alpha: 'A', alfa: 'A', bravo: 'B', charlie: 'C', delta: 'D', echo: 'E', foxtrot: 'F', golf: 'G', hotel: 'H', india: 'I',
  juliet: 'J', juliett: 'J', kilo: 'K', lima: 'L', mike: 'M', november: 'N', oscar: 'O', papa: 'P', quebec: 'Q', romeo: 'R',
  sierra: 'S', tango: 'T', uniform: 'U', victor: 'V', whiskey: 'W', whisky: 'W', xray: 'X', yankee: 'Y', zulu: 'Z',
});
/** Letter names as words; not the ones that are common words too (you, are, see, why, be, oh). */
const LETTER_NAMES = table({
  bee: 'B', dee: 'D', eff: 'F', gee: 'G', aitch: 'H', jay: 'J', kay: 'K', el: 'L', em: 'M', en: 'N', pee: 'P',
  cue: 'Q', queue: 'Q', ar: 'R', ess: 'S', tee: 'T', vee: 'V', doubleu: 'W', ex: 'X', wye: 'Y', zed: 'Z', zee: 'Z',
});
/**
 * Common words that sound like a letter or digit ("for" 4, "be" B): read so only between other
 * symbols, in a run with a letter or a written character that matches a pattern as a whole
 * ("A, mz, for 7-1" → AMZ471; never "one to four" → 124).
 */
const HOMOPHONES = table<Symbol>({
  for: ['4'], to: ['2'], too: ['2'], won: ['1'], ate: ['8'], be: ['B'], see: ['C'], sea: ['C'], you: ['U'],
  are: ['R'], why: ['Y'], eye: ['I'], tea: ['T'], pea: ['P'],
});
const REPEATS = table({ double: 2, triple: 3 });
const SEPARATOR_WORDS = new Set(['dash', 'hyphen']);

/** How one word reads inside a code; null when it cannot be part of one. */
type WordReading =
  | { kind: 'symbols'; symbols: Symbol[]; homophone?: true; numberWord?: true; cluster?: true }
  | { kind: 'tens'; digit: string }
  | { kind: 'repeat'; times: number }
  | { kind: 'separator' }
  /** A hyphenated word mixing spoken and written parts ("XR-Triple", "B-seven"), read part by part. */
  | { kind: 'parts'; parts: WordReading[] };

/** The word without surrounding punctuation; inner '-' and '.' are kept (A.M.Z., 4-7-1, X-ray). */
function core(word: string): string {
  return word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

function readWord(word: string): WordReading | null {
  const w = core(word);
  if (!w) return null;
  const lower = w.toLowerCase();
  const key = lower.replace(/[-.]/g, '');
  const homophone = HOMOPHONES.get(key);
  if (homophone) return { kind: 'symbols', symbols: [homophone], homophone: true };
  const digit = DIGIT_WORDS.get(key);
  if (digit) return { kind: 'symbols', symbols: key === 'oh' ? [['0', 'O']] : [[digit]], numberWord: true };
  const teen = TEENS.get(key);
  if (teen) return { kind: 'symbols', symbols: [...teen].map((c) => [c]), numberWord: true };
  const tens = TENS.get(key);
  if (tens) return { kind: 'tens', digit: tens };
  const letter = NATO.get(key) ?? LETTER_NAMES.get(key);
  if (letter) return { kind: 'symbols', symbols: [[letter]] };
  const times = REPEATS.get(key);
  if (times) return { kind: 'repeat', times };
  if (SEPARATOR_WORDS.has(key)) return { kind: 'separator' };
  if (/^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+$/u.test(w)) {
    const parts = w.split('-').map(readWord);
    const spoken = parts.some((r) => r && r.kind !== 'symbols');
    const wordy = w.split('-').some((part) => part.length > 1 && /^[a-z]/i.test(part) && !/^[A-Z0-9]+$/.test(part));
    if ((spoken || wordy) && parts.every((r) => r !== null)) return { kind: 'parts', parts: parts as WordReading[] };
  }
  // A single letter in any case, or written code characters: capitals and digits ("AMZ", "471",
  // "KL51", "4-7-1"), letters one by one ("a.m.z"), or any case where digits show a code ("b-75Q").
  if (!/^[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*$/.test(w)) return null;
  // letters without a vowel ("mz", "kl") are no English word: letters written as one (but "hmm")
  if (/^[b-df-hj-np-tv-xz]{2,4}$/.test(w)) return { kind: 'symbols', symbols: [...w.toUpperCase()].map((c) => [c]), cluster: true };
  const compact = w.replace(/[-.]/g, '');
  const spelled = w.split(/[-.]/).every((part) => part.length === 1);
  const written = spelled || /^[A-Z0-9]+$/.test(compact) || /\d/.test(compact);
  if (!written) return null;
  return { kind: 'symbols', symbols: [...key.toUpperCase()].map((c) => (c === 'O' ? ['O', '0'] : c === '0' ? ['0', 'O'] : [c])) };
}

/** A word read as part of a spoken code, unambiguously: its symbols, or a repeat ("double") of the next one. */
export type SpokenCodeWord = { symbols: readonly Symbol[] } | { repeat: number };

/**
 * How a word reads inside a spoken code when it reads so on its own: digit, letter and NATO names,
 * single letters, written capitals and digits, "double"/"triple". Not the words that read as a
 * symbol only between others (homophones such as "for", letter clusters such as "mz") nor tens.
 */
export function spokenCodeWord(word: string): SpokenCodeWord | null {
  const r = readWord(word);
  if (r?.kind === 'repeat') return { repeat: r.times };
  if (r?.kind !== 'symbols' || r.homophone || r.cluster) return null;
  return { symbols: r.symbols };
}

/**
 * Whether a word may be part of a spoken or written code, short of the common words that may also
 * read as one ("a", "I", "for", "you"): a digit, a letter or digit name, capitals, "double" …
 */
export function mayBeCodeWord(word: string): boolean {
  const r = readWord(word);
  if (!r || (r.kind === 'symbols' && r.homophone)) return false;
  return !/^(?:a|i)$/i.test(core(word));
}

/**
 * The symbols spoken by a run of words, or null when the run is not a code reading: every word must
 * read as code material, "double"/"triple" must precede a single symbol, separators sit inside.
 */
function spokenSymbols(words: readonly (WordReading | null)[]): Symbol[] | null {
  const readings = words.flatMap((r) => (r?.kind === 'parts' ? r.parts : [r]));
  // "for" as 4 in "A, mz, for 7-1", not in "one to four" or at the edge of a run ("be 759")
  // and "mz" as letters next to some other code material, not "hmm" alone
  const sym = readings.map((r) => (r?.kind === 'symbols' ? r : null));
  if (sym.some((r) => r?.homophone)) {
    if (sym[0]?.homophone || sym[sym.length - 1]?.homophone) return null;
    if (!sym.some((r) => r && !r.homophone && !r.numberWord)) return null;
  }
  if (sym.some((r) => r?.cluster) && !readings.some((r, i) => r && r.kind !== 'separator' && !sym[i]?.cluster && !sym[i]?.homophone)) return null;
  const out: Symbol[] = [];
  for (let i = 0; i < readings.length; i++) {
    const r = readings[i];
    if (!r) return null;
    if (r.kind === 'separator') {
      if (i === 0 || i === readings.length - 1) return null;
      continue;
    }
    if (r.kind === 'repeat') {
      const next = readings[i + 1];
      if (next?.kind !== 'symbols' || next.symbols.length !== 1) return null;
      for (let k = 0; k < r.times; k++) out.push(next.symbols[0]!);
      i++;
      continue;
    }
    if (r.kind === 'tens') {
      const next = readings[i + 1];
      const unit = next?.kind === 'symbols' && next.symbols.length === 1 ? next.symbols[0]!.find((c) => c >= '1' && c <= '9') : undefined;
      out.push([r.digit]);
      if (unit) {
        out.push([unit]);
        i++;
      } else {
        out.push(['0']);
      }
      continue;
    }
    if (r.kind === 'parts') return null; // flattened above: parts never nest
    out.push(...r.symbols);
  }
  return out.length > 0 ? out : null;
}

function inClass(node: Extract<PatternNode, { kind: 'class' }>, c: string): boolean {
  return node.ranges.some(([from, to]) => c >= from && c <= to);
}

/** Written texts by the position after them: for each end, the shortest (the first found on a tie). */
type Reach = Map<number, string>;

function keep(out: Reach, end: number, text: string): void {
  const had = out.get(end);
  if (had === undefined || text.length < had.length) out.set(end, text);
}

/**
 * One run of symbols read against patterns' ASTs, memoised on (node, position): each node's
 * shortest written text to every end position is worked out once. Separators consume no symbol and
 * write themselves, so the written form gets the pattern's separators whether or not they were
 * spoken. The work is bounded by nodes × positions² × repeat counts whatever the pattern's ambiguity
 * (listing every derivation, as a backtracking reader does, took minutes for
 * `([0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]){4}` on 24 spoken digits).
 */
class CodeReading {
  private readonly memo = new Map<PatternNode, Reach[]>();

  constructor(
    readonly symbols: readonly Symbol[],
    private readonly checkpoint: (() => void) | undefined,
  ) {}

  /**
   * The written form of the first `length` symbols under `pattern`, or null when they do not match it
   * as a whole. Of several forms the shortest wins: a separator in an optional group is written only
   * when the pattern needs it.
   */
  form(pattern: CompiledPattern, length: number): string | null {
    return this.reach(pattern.ast, 0).get(length) ?? null;
  }

  /** Whether `symbols` begin this reading's, so that form() answers for them. */
  begins(symbols: readonly Symbol[]): boolean {
    return symbols.length <= this.symbols.length && symbols.every((s, i) => sameSymbol(s, this.symbols[i]!));
  }

  private reach(node: PatternNode, pos: number): Reach {
    let byPos = this.memo.get(node);
    if (!byPos) this.memo.set(node, (byPos = []));
    let out = byPos[pos];
    if (!out) {
      this.checkpoint?.();
      byPos[pos] = out = this.read(node, pos);
    }
    return out;
  }

  private read(node: PatternNode, pos: number): Reach {
    switch (node.kind) {
      case 'separator':
        return new Map([[pos, node.char]]);
      case 'literal':
      case 'class': {
        // a symbol's first reading the node takes ("oh" is 0 for [0-9], O for [A-Z]); literals keep their case
        const c = this.symbols[pos]?.find((c) => (node.kind === 'literal' ? c === node.char.toUpperCase() : inClass(node, c)));
        return c === undefined ? new Map() : new Map([[pos + 1, node.kind === 'literal' ? node.char : c]]);
      }
      case 'sequence':
        return node.items.reduce<Reach>((from, item) => this.then(from, item), new Map([[pos, '']]));
      case 'repeat': {
        const rounds: Reach[] = [new Map([[pos, '']])];
        for (let k = 1; k <= node.max && rounds[k - 1]!.size > 0; k++) rounds.push(this.then(rounds[k - 1]!, node.node));
        // most repetitions first, so that of equally short forms the greediest is kept
        const out: Reach = new Map();
        for (let k = rounds.length - 1; k >= node.min; k--) for (const [end, text] of rounds[k]!) keep(out, end, text);
        return out;
      }
    }
  }

  /** Each text of `from` followed by each of `node` read from where it ends. */
  private then(from: Reach, node: PatternNode): Reach {
    const out: Reach = new Map();
    for (const [at, head] of from) for (const [end, text] of this.reach(node, at)) keep(out, end, head + text);
    return out;
  }
}

const sameSymbol = (a: Symbol, b: Symbol) => a.length === b.length && a.every((c, i) => c === b[i]);

/** A run of words [start, end) that reads as a code, and its written form. */
export interface PatternSpan {
  start: number;
  end: number;
  text: string;
  pattern: string;
}

/** Longest spoken run considered: a 32-character code spoken with a word per character, and a few fillers. */
const MAX_SPAN_WORDS = 40;

/**
 * Runs of `words` that spell a code matching one of `patterns`, left to right, the longest run
 * first (of the patterns matching it, the shortest written form). Words around a code that could be
 * letters or digits ("a", "two") stay outside it when the code matches without them. A run that is
 * already exactly the written form is reported too (its text unchanged). `checkpoint`, called between
 * steps of the reading, may throw to cancel it.
 */
export function findPatternSpans(words: readonly string[], patterns: readonly CompiledPattern[], checkpoint?: () => void): PatternSpan[] {
  if (patterns.length === 0) return [];
  const readings = words.map(readWord);
  const spans: PatternSpan[] = [];
  for (let i = 0; i < words.length; ) {
    let found: PatternSpan | null = null;
    if (readings[i]) {
      let last = i;
      while (last < words.length && last - i < MAX_SPAN_WORDS && readings[last]) last++;
      // a shorter run mostly reads the symbols of a longer one less its tail: one reading answers both
      let reading: CodeReading | null = null;
      for (let j = last; j > i && !found; j--) {
        const symbols = spokenSymbols(readings.slice(i, j));
        if (!symbols) continue;
        for (const p of patterns) {
          if (symbols.length > p.maxLength) continue;
          if (!reading?.begins(symbols)) reading = new CodeReading(symbols, checkpoint);
          const text = reading.form(p, symbols.length);
          if (text && (!found || text.length < found.text.length)) found = { start: i, end: j, text, pattern: p.source };
        }
      }
    }
    if (found) {
      spans.push(found);
      i = found.end;
    } else {
      i++;
    }
  }
  return spans;
}

/**
 * Text with every spoken code that matches a pattern written in its canonical form:
 * "My order is A M Z four seven one." → "My order is AMZ471." Punctuation before the first and
 * after the last word of a code is kept; punctuation between its words ("A, M, Z") is dropped.
 */
export function applyPatterns(text: string, patterns: readonly CompiledPattern[], checkpoint?: () => void): string {
  const parts = text.split(/(\s+)/);
  const words = parts.filter((_, k) => k % 2 === 0);
  const spans = findPatternSpans(words, patterns, checkpoint);
  if (spans.length === 0) return text;
  const out: string[] = [];
  let w = 0;
  for (const span of spans) {
    for (; w < span.start; w++) out.push(words[w]!, parts[2 * w + 1] ?? '');
    const first = words[span.start]!;
    const last = words[span.end - 1]!;
    const lead = /^[^\p{L}\p{N}]*/u.exec(first)![0];
    const trail = /[^\p{L}\p{N}]*$/u.exec(last)![0];
    out.push(`${lead}${span.text}${trail.replace(/^[,;:]+/, '')}`, parts[2 * (span.end - 1) + 1] ?? '');
    w = span.end;
  }
  for (; w < words.length; w++) out.push(words[w]!, parts[2 * w + 1] ?? '');
  return out.join('');
}

/** A word with times, as the engine and the transcript carry them. */
export interface TimedWord {
  text: string;
  startMs: number;
  endMs: number;
  confidence: number;
}

/**
 * Words with each spoken code merged into one word holding its written form, spanning the
 * times of the words it replaces, with the lowest confidence among them.
 */
export function applyPatternsToWords<W extends TimedWord>(words: readonly W[], patterns: readonly CompiledPattern[], checkpoint?: () => void): W[] {
  const spans = findPatternSpans(
    words.map((w) => w.text),
    patterns,
    checkpoint,
  );
  if (spans.length === 0) return words.slice();
  const out: W[] = [];
  let w = 0;
  for (const span of spans) {
    for (; w < span.start; w++) out.push(words[w]!);
    const run = words.slice(span.start, span.end);
    const lead = /^\s*[^\p{L}\p{N}\s]*/u.exec(run[0]!.text)![0];
    const trail = /[^\p{L}\p{N}]*$/u.exec(run[run.length - 1]!.text)![0].replace(/^[,;:]+/, '');
    out.push({
      ...run[0]!,
      text: `${lead}${span.text}${trail}`,
      endMs: run[run.length - 1]!.endMs,
      confidence: Math.min(...run.map((x) => x.confidence)),
    });
    w = span.end;
  }
  for (; w < words.length; w++) out.push(words[w]!);
  return out;
}
