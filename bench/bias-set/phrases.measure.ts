/**
 * Phrase biasing on the bias set (bench/bias-set/generate.mjs) and on ../shared/eval/en with the real
 * model in Node: recall of the bias terms, WER, and false insertions into unrelated audio, per condition.
 * Every condition decodes as the engine does (engine/decoding/steering.ts): `off` is the unbiased pass alone,
 * `S<x>` adds decodeWithPhrases at bias_strength x (phrase-pass.ts biasPlan), `S<x>` followed by `c<y>`,
 * `s<z>` override the plan's credit per phrase and the trie's strength. Env: VOICES=slt,awb (subset), MODEL=whisper-base,
 * CONDITIONS=off,S0.45,S1, EN=0 to skip ../shared/eval's English recordings, ONLY=regex (clip files), LOG=file for progress,
 * LIST=10000 for a list of that many phrases (default 250: the set's terms, then made-up names).
 * SET=real: the real-speech set instead (real-speech.json, from real-terms.mjs: rare words of ../shared/eval/en and
 * ../shared/dev/en that Whisper missed unbiased); HALF=tune|report counts only that half's terms (the list holds both).
 * TERM_WORDS=3-5 (SET=real): each term listed as the 3, 4, 5, 3 ... words of its reference around it ("wild
 * huntsman of german"), the made-up distractors run together to as many words: multi-word terms of real speech.
 * DECODING=fast|accurate: the unbiased pass's beams (default: the engine's for the model, src/transcriber.ts).
 * ENGINE=1: each condition is a whole request to the worker's Engine in Node (bench/lib/node-engine.ts), as
 * a user's is: its encoder windows (fitted, with the full-window retry), seek and every window of a longer
 * clip; `off` is strength 0. Without it, one full 30 s window per clip is encoded and decoded here, which
 * allows the c/s overrides and prints each comparison the phrase pass made.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { dirname } from 'node:path';
import { EVAL_DIR } from '../../config/paths';
import { decodeWindow } from '../../engine/decoding/fallback';
import { BEAMS } from '../../engine/decoding/steering';
import { biasPlan, decodeWithPhrases } from '../../engine/biasing/phrases/phrase-pass';
import { normalized, occurrences } from '../../engine/biasing/phrases/hunks';
import { createScorer, errorRate, type ClipErrors } from '../score/error-rate';
import { generateBiasSet } from './generate.mjs';
import { falseInsertions, heardSeconds, unrelatedRecordings, windowReference } from './unrelated-recordings';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { madeUpLongPhrases, madeUpPhrases, wordRange } from './phrase-list';
import { log } from './progress-log';
import { startNodeEngine } from '../lib/node-engine';
import { defaultDecoding, SAMPLE_RATE, type Decoding, type ModelName } from '../../engine/protocol';

interface Clip {
  file: string;
  eval_path?: string;
  text: string | null;
  kind: string;
  speaker: string;
  bias_phrases?: string[];
  must_contain?: string[];
}

/**
 * The real-speech set as phrase clips: each clip's terms are what it must contain (HALF: only that half's).
 * With `words` (TERM_WORDS), each term is listed as the words around it in its reference, least to most in turn.
 */
function realSpeechSet(half: string | undefined, words: [number, number] | null): { dir: string; clips: Clip[]; phrases: string[] } {
  const set = JSON.parse(readFileSync('bench/bias-set/real-speech.json', 'utf8')) as {
    clips: { path: string; text: string; terms: { term: string; half: string }[] }[];
  };
  let n = 0;
  const listed = (text: string, term: string) => (words ? termInContext(text, term, words[0] + (n++ % (words[1] - words[0] + 1))) : term);
  const terms = set.clips.map((c) => c.terms.map((t) => ({ half: t.half, term: listed(c.text, t.term) })));
  const clips = set.clips.map((c, i) => ({
    file: c.path,
    eval_path: join('..', c.path),
    text: c.text,
    kind: 'phrase',
    speaker: 'real',
    must_contain: terms[i]!.filter((t) => !half || t.half === half).map((t) => t.term),
  }));
  return { dir: dirname(EVAL_DIR), clips, phrases: terms.flat().map((t) => t.term) };
}

/** The `count` words of `text` around `term`'s first occurrence, lower-cased but the term as listed. */
function termInContext(text: string, term: string, count: number): string {
  const words = text.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')).filter((w) => w !== '');
  const at = words.findIndex((w) => normalized(w) === normalized(term));
  if (at < 0) throw new Error(`"${term}" is not a word of "${text}"`);
  const start = Math.max(0, Math.min(at - Math.floor((count - 1) / 2), words.length - count));
  return words.slice(start, start + count).map((w, i) => (start + i === at ? term : w.toLowerCase())).join(' ');
}

/** The unbiased pass's decoding: the engine's default per model (defaultDecoding) unless DECODING says. */
const firstPassDecoding = (model: ModelName) => (process.env.DECODING as Decoding | undefined) ?? defaultDecoding(model);

it('phrase biasing: recall, WER, false insertions', async () => {
  const termWords = wordRange('TERM_WORDS');
  if (termWords && process.env.SET !== 'real') throw new Error('TERM_WORDS lists the real-speech set\'s terms: it needs SET=real');
  const real = process.env.SET === 'real' ? realSpeechSet(process.env.HALF, termWords) : null;
  const { dir, clips } = real ?? generateBiasSet();
  const voices = process.env.VOICES?.split(',');
  const conditions = (process.env.CONDITIONS ?? 'off,S0.45,S1').split(',');
  const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
  const selected = clips.filter(
    (c) => c.kind !== 'code' && (!voices || !c.speaker.startsWith('flite-') || voices.includes(c.speaker.slice(6))) && (!only || only.test(c.file)),
  );
  const setPhrases = real ? real.phrases : [...new Set(clips.flatMap((c) => c.bias_phrases ?? []))];
  const fill = Number(process.env.LIST ?? 250) - setPhrases.length;
  const phrases = [...setPhrases, ...(termWords ? madeUpLongPhrases(fill, termWords) : madeUpPhrases(fill))];
  const held = new Set(clips.map((c) => c.eval_path));
  const unrelated: Clip[] = process.env.EN !== '0' ? unrelatedRecordings(only).filter((c) => !held.has(join('..', 'eval', c.eval_path))) : [];
  const modelName = (process.env.MODEL ?? 'whisper-tiny') as ModelName;
  const decoding = firstPassDecoding(modelName);
  const beams = BEAMS[decoding];
  // one of the two: the worker's whole Engine, or the model alone for the one-window mode
  const engine = process.env.ENGINE === '1' ? await startNodeEngine(modelName) : null;
  const model = engine ? null : await loadNodeWhisper(modelName);
  const scorer = createScorer(JSON.parse(readFileSync('public/models/whisper-tiny/normalizer.json', 'utf8')));
  const stats = new Map(
    conditions.map((c) => [c, { hits: 0, terms: 0, wer: [] as ClipErrors[], insertions: 0, phraseClipInsertions: 0, unrelatedWer: [] as ClipErrors[], unrelatedAudioS: 0, seconds: 0 }]),
  );
  /**
   * Adds one decoded text to a condition's counts. `heardS`: the seconds the decoding heard; `reference`:
   * what was said in them, if known, else `unbiased` (the first pass's text) stands in when counting insertions.
   */
  type Counts = typeof stats extends Map<string, infer S> ? S : never;
  const score = (st: Counts, clip: Clip, heardS: number, reference: string | null, text: string, unbiased: string | null, seconds: number) => {
    st.seconds += seconds;
    if (clip.kind === 'unrelated') {
      st.unrelatedAudioS += heardS;
      st.insertions += falseInsertions(text, reference ?? unbiased ?? '', phrases);
      if (reference) st.unrelatedWer.push(scorer.score(reference, text, 'en'));
    } else {
      for (const term of clip.must_contain ?? []) {
        st.terms++;
        if (occurrences(text, term) > 0) st.hits++;
      }
      if (reference) st.wer.push(scorer.score(reference, text, 'en'));
      // a listed phrase written where the reference has none (another clip's term, a made-up name)
      if (clip.text) st.phraseClipInsertions += falseInsertions(text, clip.text, phrases);
    }
  };
  for (const clip of [...selected, ...unrelated]) {
    const audio = readAudio(clip.eval_path ? join(EVAL_DIR, clip.eval_path) : join(dir, clip.file));
    if (engine) {
      const line: string[] = [];
      for (const cond of conditions) {
        const strength = cond === 'off' ? 0 : Number(/^S([\d.]+)$/.exec(cond)?.[1] ?? NaN);
        if (Number.isNaN(strength)) throw new Error(`ENGINE=1 takes off and S<x> only, not ${cond}`);
        const t0 = performance.now();
        const result = await engine.transcribe(audio, { encoderWindow: 'fit', decoding }, { phrases, biasStrength: strength });
        const text = result.segments.map((seg) => seg.text.trim()).join(' ');
        score(stats.get(cond)!, clip, audio.length / SAMPLE_RATE, clip.text, text, null, (performance.now() - t0) / 1000);
        line.push(`${cond}: ${text}`);
      }
      log(`${clip.file}\n  ${line.join('\n  ')}`);
      continue;
    }
    if (!model) throw new Error('the one-window mode runs the model itself');
    const enc = await encodeClip(model, audio);
    const opts = { language: 'en', wantAttention: false, audioSeconds: enc.seconds };
    const textOf = (gen: Awaited<ReturnType<typeof decodeWindow>>) => model.vocab.decode(gen.tokens.map((t) => t.id)).trim();
    let t0 = performance.now();
    const first = await decodeWindow(model, enc.encoded, { ...opts, beams });
    const firstSeconds = (performance.now() - t0) / 1000;
    const line: string[] = [];
    for (const cond of conditions) {
      const m = /^S([\d.]+)((?:[cs][\d.]+)*)$/.exec(cond);
      if (cond !== 'off' && !m) throw new Error(`unknown condition ${cond}`);
      const plan = m ? biasPlan(Number(m[1])) : null;
      for (const [, part, value] of (m?.[2] ?? '').matchAll(/([cs])([\d.]+)/g)) {
        if (part === 'c') plan!.credit = Number(value);
        else plan!.strength = Number(value);
      }
      t0 = performance.now();
      let compared = '';
      const gen = plan
        ? await decodeWithPhrases(model, enc.encoded, opts, first, phrases, plan, (c) => {
            const lost = c.lost.length > 0 ? `, lost ${c.lost.join(', ')}` : '';
            compared += ` [${c.how}: ${c.gained.join(', ')}${lost}${c.unpaid.length ? ` (unpaid: ${c.unpaid.join(', ')})` : ''}: cost ${c.cost.toFixed(1)} vs credit ${c.credit.toFixed(2)}/phrase; biased: ${c.biasedText.trim()}]`;
          })
        : first;
      const text = textOf(gen);
      const seconds = audio.length / SAMPLE_RATE;
      score(stats.get(cond)!, clip, heardSeconds(seconds), windowReference(clip.text, seconds), text, textOf(first), firstSeconds + (performance.now() - t0) / 1000);
      line.push(`${cond}: ${text}${compared}`);
    }
    log(`${clip.file}\n  ${line.join('\n  ')}`);
  }
  await engine?.close();
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  log(`model ${process.env.MODEL ?? 'whisper-tiny'}, first pass ${beams} beam(s), set ${real ? `real speech (${process.env.HALF ?? 'both'} half)` : 'flite'}, voices ${voices?.join(',') ?? 'all'}, ${unrelated.length} English clips of ../shared/eval as unrelated audio`);
  log('condition | term recall | WER (phrase clips) | WER (unrelated) | false insertions (unrelated audio) | false insertions (phrase clips) | decode s');
  for (const [cond, s] of stats) {
    const per10 = s.unrelatedAudioS > 0 ? ` = ${((s.insertions * 600) / s.unrelatedAudioS).toFixed(2)}/10 min` : '';
    log(
      `${cond} | ${s.hits}/${s.terms} = ${pct(s.hits / Math.max(1, s.terms))} | ${pct(errorRate(s.wer))} | ${pct(errorRate(s.unrelatedWer))} | ` +
        `${s.insertions} in ${s.unrelatedAudioS.toFixed(0)} s${per10} | ${s.phraseClipInsertions} | ${s.seconds.toFixed(1)}`,
    );
  }
});
