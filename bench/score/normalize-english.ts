import { normalizeEnglishNumbers } from './english-numbers';
import { dropBracketedSpans } from './normalize-basic';

/**
 * The English text normaliser of ../shared/eval/README.md, modelled on Whisper's English normaliser:
 * NFKC, lowercase, strip diacritics, drop bracketed spans and fillers, expand contractions, symbols
 * to words, other punctuation to spaces (hyphens split words), titles spelled out, British spellings
 * to American, spelled-out numbers to digits, whitespace collapsed.
 */

/** British -> American spellings, word for word (normalizer.json of the model package). */
export type SpellingMap = Readonly<Record<string, string>>;

/** Letters that Unicode does not decompose into base + combining mark. */
const EXTRA_DIACRITICS: Record<string, string> = {
  œ: 'oe', ø: 'o', æ: 'ae', ß: 'ss', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i',
};

const FILLERS = /\b(?:hmm+|mm+|mhm|uh|um+)\b/g;

/** Applied in order, on lowercase text whose apostrophes are all "'". */
const REPLACEMENTS: [RegExp, string][] = [
  // whole-word contractions whose expansion is not the general rule below
  [/\bwon't\b/g, 'will not'],
  [/\bcan't\b/g, 'can not'],
  [/\bain't\b/g, 'aint'],
  [/\by'all\b/g, 'you all'],
  [/\bma'am\b/g, 'madam'],
  [/\bwanna\b/g, 'want to'],
  [/\bgonna\b/g, 'going to'],
  [/\bgotta\b/g, 'got to'],
  // titles and abbreviations, spelled out
  [/\bmr\b/g, 'mister '],
  [/\bmrs\b/g, 'missus '],
  [/\bdr\b/g, 'doctor '],
  [/\bst\b/g, 'saint '],
  [/\bprof\b/g, 'professor '],
  [/\bcapt\b/g, 'captain '],
  [/\bgov\b/g, 'governor '],
  [/\bgen\b/g, 'general '],
  [/\bsen\b/g, 'senator '],
  [/\brep\b/g, 'representative '],
  [/\bpres\b/g, 'president '],
  [/\brev\b/g, 'reverend '],
  [/\bhon\b/g, 'honorable '],
  [/\blt\b/g, 'lieutenant '],
  [/\bcol\b/g, 'colonel '],
  [/\bjr\b/g, 'junior '],
  [/\bsr\b/g, 'senior '],
  [/\besq\b/g, 'esquire '],
  [/\bper cent\b/g, 'percent'],
  // general contractions; other apostrophes ('s, 'd) are deleted later, as the eval README says
  // (checked: this reproduces the reference WER for transformers.js on ../shared/eval/en)
  [/n't\b/g, ' not'],
  [/'re\b/g, ' are'],
  [/'ll\b/g, ' will'],
  [/'ve\b/g, ' have'],
  [/'m\b/g, ' am'],
];

const CURRENCIES: Record<string, string> = { $: 'dollars', '£': 'pounds', '€': 'euros', '¢': 'cents' };
const SYMBOL_WORDS: [RegExp, string][] = [
  [/%/g, ' percent '],
  [/&/g, ' and '],
  [/@/g, ' at '],
  [/\+/g, ' plus '],
];

function stripDiacritics(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{Mn}/gu, '')
    .replace(/[œøæßđðþłı]/g, (c) => EXTRA_DIACRITICS[c]!);
}

function symbolsToWords(text: string): string {
  let s = text.replace(/(\d),(?=\d{3}\b)/g, '$1');
  s = s.replace(
    /([$£€])\s?(\d+(?:\.\d+)?)((?:\s+(?:thousand|million|billion|trillion))?)/g,
    (_, symbol: string, amount: string, scale: string) => ` ${amount}${scale} ${CURRENCIES[symbol]} `,
  );
  s = s.replace(/(\d+(?:\.\d+)?)\s?¢/g, ' $1 cents ');
  for (const [pattern, words] of SYMBOL_WORDS) s = s.replace(pattern, words);
  return s;
}

function punctuationToSpaces(text: string): string {
  return text
    .replace(/(\p{L})'(?=\p{L})/gu, '$1') // o'clock -> oclock: a word-internal apostrophe goes
    .replace(/(?<!\d)\.|\.(?!\d)/g, ' ') // a period stays only as a decimal point
    .replace(/[^\P{P}.]|[\p{S}\p{M}]/gu, ' ');
}

export function createEnglishNormalizer(spellings: SpellingMap): (text: string) => string {
  const american = new Map(Object.entries(spellings));
  return (text: string): string => {
    let s = stripDiacritics(text.normalize('NFKC').toLowerCase());
    s = s.replace(/[\u2018\u2019\u02bc`\u00b4]/g, "'");
    s = dropBracketedSpans(s).replace(FILLERS, ' ');
    s = s.replace(/\s+'(s|re|ll|ve|m|d|t)\b/g, "'$1"); // "he 's" -> "he's"
    for (const [pattern, replacement] of REPLACEMENTS) s = s.replace(pattern, replacement);
    s = punctuationToSpaces(symbolsToWords(s));
    const words = s.split(/\s+/).filter((w) => w !== '');
    return normalizeEnglishNumbers(words)
      .map((w) => american.get(w) ?? w)
      .join(' ');
  };
}
