/**
 * Spelled-out English numbers to digits, over already-normalised lowercase words:
 * "one hundred and five" -> "105", "twenty five" -> "25", "two thousand and twenty" -> "2020",
 * "eighteen thirteen" -> "1813" (two two-digit numbers read as a year), "twenty first" -> "21st",
 * "three point five" -> "3.5", "5 million" -> "5000000".
 * A run of single digits stays separate ("five five" -> "5 5"): each is its own number.
 */

const ONES: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9,
};
const TEENS: Record<string, number> = {
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16,
  seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};
const SCALES: Record<string, number> = {
  thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12,
};

/** Ordinal words: the cardinal word they stand for, and the suffix digits take ("21st"). */
const ORDINALS: Record<string, [cardinal: string, suffix: string]> = {
  first: ['one', 'st'], second: ['two', 'nd'], third: ['three', 'rd'], fourth: ['four', 'th'],
  fifth: ['five', 'th'], sixth: ['six', 'th'], seventh: ['seven', 'th'], eighth: ['eight', 'th'],
  ninth: ['nine', 'th'], tenth: ['ten', 'th'], eleventh: ['eleven', 'th'], twelfth: ['twelve', 'th'],
  thirteenth: ['thirteen', 'th'], fourteenth: ['fourteen', 'th'], fifteenth: ['fifteen', 'th'],
  sixteenth: ['sixteen', 'th'], seventeenth: ['seventeen', 'th'], eighteenth: ['eighteen', 'th'],
  nineteenth: ['nineteen', 'th'], twentieth: ['twenty', 'th'], thirtieth: ['thirty', 'th'],
  fortieth: ['forty', 'th'], fiftieth: ['fifty', 'th'], sixtieth: ['sixty', 'th'],
  seventieth: ['seventy', 'th'], eightieth: ['eighty', 'th'], ninetieth: ['ninety', 'th'],
  hundredth: ['hundred', 'th'], thousandth: ['thousand', 'th'], millionth: ['million', 'th'],
};

const DIGITS = /^\d+(?:\.\d+)?$/;

/** One parsed number: its text, where it ends, and whether it may pair up as half of a year. */
interface NumberGroup {
  text: string;
  end: number;
  /** Spelled as a plain 10..99 ("eighteen", "ninety nine"): "eighteen thirteen" pairs up to 1813. */
  yearHalf: boolean;
}

const isNumberWord = (w: string | undefined): boolean =>
  w !== undefined && (w in ONES || w in TEENS || w in TENS);

/** Parses the longest well-formed cardinal starting at words[start]; null when none starts there. */
function parseGroup(words: readonly string[], start: number): NumberGroup | null {
  let total = 0;
  let current: number | null = null;
  let lastScale = Infinity;
  let afterHundred = false;
  let previousKind: 'ones' | 'teens' | 'tens' | 'hundred' | 'scale' | 'digits' | null = null;
  let spelled = 0;
  let suffix = '';
  let j = start;

  for (; j < words.length && suffix === ''; j++) {
    let word = words[j]!;
    const ordinal = ORDINALS[word];
    if (ordinal) {
      // A lone ordinal ("first", "second") is a word, not a number; only "twenty first" and the like.
      if (previousKind === null) break;
      word = ordinal[0];
    }
    const slotFree = current === null || (afterHundred && current % 100 === 0);
    if (word in ONES || word in TEENS) {
      const v = (ONES[word] ?? TEENS[word])!;
      if (slotFree) current = (current ?? 0) + v;
      else if (previousKind === 'tens' && v > 0 && v < 10) current = current! + v;
      else break;
      previousKind = word in ONES ? 'ones' : 'teens';
    } else if (word in TENS) {
      if (!slotFree) break;
      current = (current ?? 0) + TENS[word]!;
      previousKind = 'tens';
    } else if (word === 'hundred') {
      if (current === null) current = 100;
      else if (current < 100 && !afterHundred) current *= 100;
      else break;
      afterHundred = true;
      previousKind = 'hundred';
    } else if (word in SCALES) {
      const scale = SCALES[word]!;
      if (scale >= lastScale) break;
      if (current === null) {
        if (previousKind !== null) break;
        current = 1;
      }
      total += current * scale;
      current = null;
      lastScale = scale;
      afterHundred = false;
      previousKind = 'scale';
    } else if (word === 'and' && previousKind !== null) {
      // Only "hundred and five", "thousand and twenty": the "and" belongs to the number.
      const joins = (previousKind === 'hundred' || previousKind === 'scale') && isNumberWord(words[j + 1]);
      if (!joins) break;
      continue;
    } else if (DIGITS.test(word) && previousKind === null && !ordinal) {
      current = Number(word);
      previousKind = 'digits';
      continue;
    } else {
      break;
    }
    spelled++;
    if (ordinal) suffix = ordinal[1];
  }
  if (previousKind === null) return null;
  if (previousKind === 'digits' && spelled === 0) return { text: words[start]!, end: j, yearHalf: false };

  let value = total + (current ?? 0);
  let text = String(value);
  if (suffix === '' && words[j] === 'point' && words[j + 1]! in ONES) {
    let decimals = '';
    for (j++; j < words.length && words[j]! in ONES; j++) decimals += ONES[words[j]!];
    text = `${text}.${decimals}`;
    value = Number(text);
  }
  const plain = suffix === '' && total === 0 && !afterHundred && !text.includes('.');
  const yearHalf = plain && spelled > 0 && value >= 10 && value <= 99;
  return { text: text + suffix, end: j, yearHalf };
}

/** Replaces spelled-out numbers in a list of normalised words by digits. */
export function normalizeEnglishNumbers(words: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < words.length) {
    const group = parseGroup(words, i);
    if (!group) {
      out.push(words[i]!);
      i++;
      continue;
    }
    const next = group.yearHalf ? parseGroup(words, group.end) : null;
    if (next?.yearHalf) {
      out.push(group.text + next.text);
      i = next.end;
    } else {
      out.push(group.text);
      i = group.end;
    }
  }
  return out;
}
