import { confidenceBands, languageCorrect, timingSanity, wordCorrectness, wordsOf, type SpecTranscript } from '../score/words-language';
import type { Clip } from './manifest';
import type { SideRun } from './run-side';
import { percent } from './table';

const POOL = ['en', 'es', 'de', 'fr', 'it', 'pt', 'ru', 'ja', 'zh', 'ko'];

/** `count` candidate codes holding the clip's language(s), the others taken from a fixed pool in turn. */
export function candidatesFor(clip: Clip, count: number, index: number): string[] {
  const own = clip.lang.split('+');
  const others = POOL.filter((l) => !own.includes(l));
  const out = [...own];
  for (let k = 0; out.length < count; k++) out.push(others[(index + k) % others.length]!);
  return out;
}

/** Language-ID accuracy, word-timing sanity and confidence bands, for whatever the transcripts carry. */
export function printWordsAndLanguage(run: SideRun): void {
  let langRight = 0;
  let langScored = 0;
  const wrong: string[] = [];
  const sanity = { words: 0, overlapping: 0, pastEnd: 0, zeroLength: 0 };
  const pairs: { confidence: number; right: boolean }[] = [];
  for (const r of run.clips) {
    const t = r.transcript as SpecTranscript | null;
    if (!t) continue;
    const ok = languageCorrect(t, r.clip.lang);
    if (ok !== null) {
      langScored++;
      if (ok) langRight++;
      else wrong.push(`${r.clip.file} (${r.clip.lang}): ${t.language ?? (t.segments ?? []).map((s) => s.language).join(',')}`);
    }
    const words = wordsOf(t);
    const s = timingSanity(words, r.audio_ms);
    for (const k of ['words', 'overlapping', 'pastEnd', 'zeroLength'] as const) sanity[k] += s[k];
    if (r.clip.text !== null && words.some((w) => w.confidence !== undefined)) {
      const right = wordCorrectness(r.clip.text, words);
      words.forEach((w, i) => w.confidence !== undefined && pairs.push({ confidence: w.confidence, right: right[i]! }));
    }
  }
  if (langScored > 0) {
    console.log(`language ID: ${langRight}/${langScored} (${percent(langRight / langScored)})${wrong.length ? `; wrong: ${wrong.join('; ')}` : ''}`);
  }
  if (sanity.words > 0) {
    console.log(`word timing: ${sanity.words} timed words; starting before the previous word ends ${sanity.overlapping}, past the audio's end ${sanity.pastEnd}, zero-length ${sanity.zeroLength}`);
  }
  if (pairs.length > 0) {
    const bands = confidenceBands(pairs)
      .map((b) => `[${b.from}, ${b.to}${b.to === 1 ? ']' : ')'}: ${b.words} words, ${b.words ? percent(b.right / b.words) : '-'} right`)
      .join('; ');
    console.log(`confidence bands: ${bands}`);
  }
}
