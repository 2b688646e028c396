import { unitFor, type Scorer } from '../score/error-rate';
import { confidenceBands, languageCorrect, timingSanity, wordCorrectness, wordsOf, type SpecTranscript } from '../score/words-language';
import type { Clip } from './manifest';
import type { SideRun } from './run-side';
import { byFolder, scoreRun, summarize } from './summary';
import { formatTable, percent } from './table';

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
export function printWordsAndLanguage(run: SideRun, show: { language: boolean } = { language: true }): void {
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
    // zh/ja/ko are scored by characters: their Whisper "words" have no reference words to match
    if (r.clip.text !== null && unitFor(r.clip.lang) === 'word' && words.some((w) => w.confidence !== undefined)) {
      const right = wordCorrectness(r.clip.text, words);
      words.forEach((w, i) => w.confidence !== undefined && pairs.push({ confidence: w.confidence, right: right[i]! }));
    }
  }
  if (show.language && langScored > 0) {
    console.log(`language ID: ${langRight}/${langScored} (${percent(langRight / langScored)})${wrong.length ? `; wrong: ${wrong.join('; ')}` : ''}`);
  }
  if (sanity.words > 0) {
    console.log(`word timing: ${sanity.words} timed words; starting before the previous word ends ${sanity.overlapping}, past the audio's end ${sanity.pastEnd}, zero-length ${sanity.zeroLength}`);
  }
  if (pairs.length > 0) {
    const bands = confidenceBands(pairs)
      .map((b) => `[${b.from}, ${b.to}${b.to === 1 ? ']' : ')'}: ${b.words} words, ${b.words ? percent(b.right / b.words) : '-'} right`)
      .join('; ');
    console.log(`confidence bands (word-scored languages): ${bands}`);
  }
}

/*
 * The issue-5 language report (`npm run eval -- --language-report N`): every clip is run three times per
 * model, each pass in a fresh browser: `auto` (no language), `candidates` (language = the clip's own and
 * N-1 others, candidatesFor) and `given` (language = the clip's own: its WER is the reference the
 * auto-detected WER is held to). All passes ask for language, words, timestamps and confidence.
 */
export const LANGUAGE_REPORT_FLAGS = 'include_language=true&include_words=true&include_timestamps=true&include_confidence=true';
export const LANGUAGE_PASSES = ['auto', 'candidates', 'given'] as const;
export type LanguagePass = (typeof LANGUAGE_PASSES)[number];

/** The query of one pass for one clip; `extra` (--params) is added to every pass. */
export function languagePassParams(pass: LanguagePass, clip: Clip, candidates: number, index: number, extra?: string): string {
  const language = pass === 'auto' ? null : pass === 'given' ? clip.lang.split('+') : candidatesFor(clip, candidates, index);
  return [LANGUAGE_REPORT_FLAGS, extra, language ? `language=${language.join(',')}` : null].filter(Boolean).join('&');
}

function detected(t: SpecTranscript | null): string {
  if (!t) return 'FAILED';
  const seen = (t.segments ?? []).map((s) => s.language).filter((l, i, a) => l !== undefined && l !== a[i - 1]);
  return seen.length > 0 ? seen.join('+') : (t.language ?? '-');
}

function tallyLanguage(run: SideRun): { right: number; scored: number } {
  let right = 0;
  let scored = 0;
  for (const r of run.clips) {
    const ok = r.transcript ? languageCorrect(r.transcript as SpecTranscript, r.clip.lang) : false;
    if (ok === null) continue;
    scored++;
    if (ok) right++;
  }
  return { right, scored };
}

/** Per clip and per model: detected language per pass, then accuracy, auto vs given error rates, timing sanity and confidence bands. */
export function printLanguageReport(model: string, passes: Record<LanguagePass, SideRun>, scorer: Scorer): void {
  const { auto, candidates, given } = passes;
  console.log(`\n${model}: language report (auto-detected / among candidates / given)`);
  const rows = auto.clips.map((r, i) => {
    const c = candidates.clips[i]!;
    const g = given.clips[i]!;
    const rate = (x: typeof r) => {
      const s = scoreRun(x, scorer);
      return s ? `${s.edits}/${s.referenceLength}` : '-';
    };
    return [
      `${r.clip.folder}/${r.clip.file}`,
      r.clip.lang,
      `${(r.audio_ms / 1000).toFixed(1)} s`,
      detected(r.transcript as SpecTranscript | null),
      `${detected(c.transcript as SpecTranscript | null)} of ${languageParam(c.params) ?? '?'}`,
      rate(r),
      rate(g),
    ];
  });
  console.log(formatTable(['clip', 'lang', 'audio', 'auto', 'candidates', 'errors auto', 'errors given'], rows));
  const a = tallyLanguage(auto);
  const c = tallyLanguage(candidates);
  console.log(`language ID: no candidates ${a.right}/${a.scored} (${percent(a.right / a.scored)}); true language among ${candidateCount(candidates)} candidates ${c.right}/${c.scored} (${percent(c.right / c.scored)})`);
  const folders = [...byFolder(auto.clips).keys()];
  const rateRows = folders.map((folder) => {
    const sa = summarize(auto.clips.filter((r) => r.clip.folder === folder), scorer);
    const sg = summarize(given.clips.filter((r) => r.clip.folder === folder), scorer);
    const cell = (x: number | null, y: number | null) => (x === null ? '-' : `${percent(x)} / ${percent(y)}`);
    const rel = (x: number | null, y: number | null) => (x === null || y === null || y === 0 ? '-' : `${x >= y ? '+' : ''}${percent((x - y) / y)}`);
    return [folder, cell(sa.wer, sg.wer), rel(sa.wer, sg.wer), cell(sa.cer, sg.cer), rel(sa.cer, sg.cer)];
  });
  console.log(formatTable(['folder', 'WER auto / given', 'relative', 'CER auto / given', 'relative'], rateRows));
  printWordsAndLanguage({ ...auto, clips: auto.clips }, { language: false });
}

function candidateCount(run: SideRun): number {
  return Math.max(0, ...run.clips.map((r) => (languageParam(r.params) ?? '').split(',').filter(Boolean).length));
}

/** The `language` parameter of a query (not include_language). */
function languageParam(query: string): string | null {
  return new URLSearchParams(query).get('language');
}
