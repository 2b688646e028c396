import type { EngineWord } from '../protocol';
import { NO_SPACE_LANGUAGES } from './words';

/*
 * Filler words per language, compared with repeated letters collapsed ("ummm" and "umm" are "um").
 * Only sounds that are never a word of the language are listed: "er" is German for "he", "um" is
 * Portuguese for "one", "em" Portuguese for "in"; "ah", "oh", "uh-huh" and Japanese "え?" carry meaning
 * and stay. "mhm" is dropped with the hums, as Whisper's own English normaliser does.
 */
/** Hums (hm, hmm, mm, mhm) in any Latin-script language: no language uses them as a word. */
const HUM = /^(h+m+|m{2,}|m+h+m+)$/;
const FILLERS = new Map<string, readonly string[]>(Object.entries({
  en: ['um', 'uh', 'uhm', 'er', 'erm'],
  de: ['äh', 'ähm', 'öh', 'öhm', 'eh', 'ehm'],
  nl: ['uh', 'uhm', 'eh', 'ehm'],
  fr: ['euh', 'heu', 'hum'],
  es: ['eh', 'ehm', 'em'],
  it: ['eh', 'ehm', 'uhm'],
  pt: ['hã', 'ãh', 'ahn', 'hum'],
  pl: ['y', 'e', 'em', 'ehm'],
  ru: ['э', 'эм', 'хм', 'м'],
  zh: ['嗯', '呃'],
  ja: ['えー', 'えと', 'えっと', 'ええと', 'えーと', 'あのー', 'うーん', 'んー'],
  ko: ['음', '으음'],
}));

/** Lowercase, without surrounding punctuation. */
function bare(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu, '');
}

/** Runs of one letter collapsed ("ummm" is "um"); Japanese ー is a letter here too. */
const collapse = (text: string): string => text.replace(/([\p{L}ー])\1+/gu, '$1');

export function isFiller(text: string, language: string): boolean {
  const raw = bare(text);
  if (raw === '') return false;
  if (HUM.test(raw)) return true;
  const n = collapse(raw);
  return (FILLERS.get(language) ?? []).some((f) => collapse(f) === n);
}

const SENTENCE_END = /[.!?。！？]$/;

/**
 * Drops filler words (`isFiller`) from `words`. A filler's sentence-final mark moves to the word before
 * when that word has none ("so uh." → "so."), and a sentence that began with a capitalised filler
 * starts with a capital again ("Um, so" → "So"). In languages without spaces, runs of up to three
 * units are tried, since the tokenizer may cut a filler like えーと into pieces.
 */
export function removeFillers(words: readonly EngineWord[], language: string): EngineWord[] {
  return cleanWords(words, language).words;
}

/** `removeFillers`, also saying which input words went. */
export interface CleanedWords {
  words: EngineWord[];
  /** Indices (into the input) of the words dropped as fillers. */
  removed: Set<number>;
  /** Of those, the ones whose sentence-final mark moved to the word before. */
  markMoved: Set<number>;
}

export function cleanWords(words: readonly EngineWord[], language: string): CleanedWords {
  const out: EngineWord[] = [];
  const removedAt = new Set<number>();
  const markMoved = new Set<number>();
  const span = NO_SPACE_LANGUAGES.has(language) ? 3 : 1;
  let capitaliseNext = false;
  for (let i = 0; i < words.length; ) {
    let k = 0;
    for (let len = Math.min(span, words.length - i); len >= 1 && k === 0; len--) {
      const joined = words.slice(i, i + len).map((w) => w.text).join(NO_SPACE_LANGUAGES.has(language) ? '' : ' ');
      if (isFiller(joined, language)) k = len;
    }
    if (k === 0) {
      const w = words[i]!;
      out.push(capitaliseNext ? { ...w, text: capitalise(w.text) } : w);
      capitaliseNext = false;
      i++;
      continue;
    }
    const removed = words.slice(i, i + k);
    const first = removed[0]!.text;
    const last = removed[removed.length - 1]!.text;
    const prev = out[out.length - 1];
    const mark = last.match(/[.!?。！？]+$/)?.[0];
    for (let j = i; j < i + k; j++) removedAt.add(j);
    if (mark && prev && !/[\p{P}]$/u.test(prev.text)) {
      out[out.length - 1] = { ...prev, text: prev.text + mark };
      markMoved.add(i + k - 1);
    }
    const startsSentence = prev === undefined || SENTENCE_END.test(prev.text) || mark !== undefined;
    if (startsSentence && /^\p{Lu}/u.test(first)) capitaliseNext = true;
    else if (mark) capitaliseNext = true;
    i += k;
  }
  return { words: out, removed: removedAt, markMoved };
}

/**
 * A segment's tokens without the fillers `cleanWords` dropped: every token of a dropped word goes (its
 * commas and spaces too), except the punctuation of one whose sentence mark moved to the word before,
 * so the tokens spell the cleaned text (up to the capital a sentence regains). `groups` are the tokens
 * of each word (engine/postprocess/words.ts wordTokens), in the order of the words given to `cleanWords`.
 */
export function tokensWithoutFillers<T>(
  tokens: readonly T[],
  groups: ReadonlyArray<{ core: readonly T[]; all: readonly T[] }>,
  cleaned: Pick<CleanedWords, 'removed' | 'markMoved'>,
): T[] {
  const dropped = new Set<T>();
  for (const i of cleaned.removed) {
    const group = groups[i];
    if (!group) continue;
    const core = new Set(group.core);
    for (const t of group.all) if (!cleaned.markMoved.has(i) || core.has(t)) dropped.add(t);
  }
  return tokens.filter((t) => !dropped.has(t));
}

function capitalise(text: string): string {
  const m = text.match(/^(\P{L}*)(\p{L})/u);
  return m ? m[1]! + m[2]!.toUpperCase() + text.slice(m[0].length) : text;
}

/** Segment text rebuilt from its words, as the language writes them. */
export function joinWords(words: readonly EngineWord[], language: string): string {
  return words.map((w) => w.text).join(NO_SPACE_LANGUAGES.has(language) ? '' : ' ');
}

/*
 * Whisper leaves out disfluencies unless its context shows them: a previous-text prompt written with
 * fillers steers it to keep them (the prompting technique in OpenAI's Whisper guide). Languages without
 * a prompt here get no prompt, i.e. the model's own behaviour.
 */
const VERBATIM_PROMPTS = new Map<string, string>(Object.entries({
  en: 'Umm, let me think like, hmm... Okay, here\'s what I\'m, uh, thinking.',
  de: 'Ähm, also, ich denke, äh, dass wir, hm, das so machen.',
  fr: 'Euh, alors, je pense que, euh, on va, hum, le faire.',
  es: 'Eh, bueno, creo que, em, vamos a, eh, hacerlo.',
  it: 'Ehm, allora, penso che, eh, lo faremo, ehm, così.',
  pt: 'Hã, então, eu acho que, hum, a gente vai, hã, fazer isso.',
  nl: 'Uhm, nou, ik denk dat, eh, we het, uh, zo doen.',
}));

export function verbatimPrompt(language: string): string | null {
  return VERBATIM_PROMPTS.get(language) ?? null;
}

/**
 * The prompt alone barely moves whisper-tiny (0 fillers on the AMI excerpts either way), so verbatim
 * also raises the logits of the language's filler words by VERBATIM_BOOST: a filler the model already
 * gives some weight to can win, one it gives none to cannot (checked on read speech: no fillers added).
 */
export const VERBATIM_BOOST = 2;

/** Ids of the single tokens that spell a filler of `language` (with and without a leading space, any case). */
export function fillerTokenIds(language: string, encode: (text: string) => number[]): number[] {
  const words = [...(FILLERS.get(language) ?? []), 'hmm', 'mm', 'mhm'];
  const ids = new Set<number>();
  for (const w of words) {
    for (const form of [w, ` ${w}`, ` ${capitalise(w)}`, capitalise(w)]) {
      const t = encode(form);
      if (t.length === 1) ids.add(t[0]!);
    }
  }
  return [...ids];
}
