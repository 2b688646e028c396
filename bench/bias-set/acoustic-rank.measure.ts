/**
 * Which listed phrase the model itself finds likeliest where the unbiased pass was unsure: at the start
 * of each unsure word (and of the word before it), every phrase of the 250-phrase list is scored by its
 * teacher-forced log-probability there, in its listed and capitalised spellings after a space. For a
 * term of a phrase clip, its best rank over those places; for unrelated speech, the likeliest phrase.
 * It asks whether a shortlist by the model, rather than by spelling (shortlist.ts), would find the terms
 * the engine misses, and what it would cost in decoder runs. A phrase whose first token is less likely
 * than FIRST_TOKEN_FLOOR is not scored further (ranked after those that are).
 * Env: MODEL (default whisper-base), VOICES=slt,kal (subset), ONLY=regex (clip files), LOG=file.
 */
import { join } from 'node:path';
import { it } from 'vitest';
import { decodeWindow } from '../../engine/decoding/fallback';
import { logSumExp } from '../../engine/whisper/logits';
import { occurrences } from '../../engine/biasing/phrases/hunks';
import { passWords } from '../../engine/biasing/phrases/splice';
import type { EncodedWindow, WhisperModel } from '../../engine/whisper/model';
import { rowAt, type Generation } from '../../engine/whisper/generate';
import { generateBiasSet } from './generate.mjs';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { madeUpPhrases } from './phrase-list';
import { log } from './progress-log';

const FIRST_TOKEN_FLOOR = -12;

interface Ranked {
  phrase: string;
  logprob: number;
  /** Of its first token, in the spelling that scored best. */
  firstToken: number;
}

/** Every phrase's log-probability as the next words after the first `at` tokens of `first`, likeliest first. */
async function phrasesAt(model: WhisperModel, encoded: EncodedWindow, seconds: number, first: Generation, at: number, forms: readonly number[][][], phrases: readonly string[]) {
  const f = model.framing(encoded, { language: 'en', audioSeconds: seconds });
  const input = [...f.prompt, ...first.tokens.slice(0, at).map((t) => t.id)];
  const out = await model.decoderForward(input, null, encoded, { logitsFrom: input.length - 1 });
  const row = rowAt(out.logits, 0);
  out.logits.dispose();
  const z = logSumExp(row, 0, row.length);
  let runs = 0;
  const ranked: Ranked[] = [];
  try {
    for (let p = 0; p < phrases.length; p++) {
      let [best, firstToken] = [-Infinity, -Infinity];
      for (const form of forms[p]!) {
        const head = row[form[0]!]! - z;
        let logprob = head;
        if (logprob < FIRST_TOKEN_FLOOR) continue;
        if (form.length > 1) {
          runs++;
          const step = await model.decoderForward(form.slice(0, -1), out.cache, encoded);
          const size = step.logits.dims[2]!;
          const data = step.logits.data as Float32Array;
          for (let k = 1; k < form.length; k++) logprob += data[(k - 1) * size + form[k]!]! - logSumExp(data, (k - 1) * size, k * size);
          step.logits.dispose();
          step.cache.release();
        }
        if (logprob > best) [best, firstToken] = [logprob, head];
      }
      ranked.push({ phrase: phrases[p]!, logprob: best, firstToken });
    }
  } finally {
    out.cache.release();
  }
  return { ranked: ranked.sort((a, b) => b.logprob - a.logprob), runs };
}

it('the model’s own ranking of the listed phrases at unsure words', async () => {
  const { dir, clips } = generateBiasSet();
  const voices = process.env.VOICES?.split(',');
  const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
  const selected = clips.filter((c) => c.kind !== 'code' && c.speaker.startsWith('flite-') && (!voices || voices.includes(c.speaker.slice(6))) && (!only || only.test(c.file)));
  const setPhrases = [...new Set(clips.flatMap((c) => c.bias_phrases ?? []))];
  const phrases = [...setPhrases, ...madeUpPhrases(250 - setPhrases.length)];
  const model = await loadNodeWhisper(process.env.MODEL ?? 'whisper-base');
  const v = model.vocab;
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
  const forms = phrases.map((p) => [...new Set([` ${p}`, ` ${cap(p)}`])].map((t) => v.encode(t)));
  const bestRanks: number[] = [];
  const unrelatedTop: number[] = [];
  let [runs, places, ms] = [0, 0, 0];
  for (const clip of selected) {
    const { encoded, seconds } = await encodeClip(model, readAudio(join(dir, clip.file)));
    const first = await decodeWindow(model, encoded, { language: 'en', wantAttention: false, audioSeconds: seconds });
    const text = v.decode(first.tokens.filter((t) => v.isText(t.id)).map((t) => t.id)).trim();
    const { words, unsure } = passWords(v, first.tokens);
    const at = new Set<number>();
    words.forEach((_, i) => unsure[i] && [i - 1, i].forEach((k) => k >= 0 && at.add(k)));
    const terms = (clip.must_contain ?? []).filter((t) => occurrences(text, t) === 0);
    const best = new Map(terms.map((t) => [t, { rank: Infinity, logprob: -Infinity, firstToken: -Infinity, word: '' }]));
    let top: Ranked & { word: string } = { phrase: '', logprob: -Infinity, firstToken: -Infinity, word: '' };
    for (const w of [...at].sort((a, b) => a - b)) {
      const start = performance.now();
      const scored = await phrasesAt(model, encoded, seconds, first, words[w]!.start, forms, phrases);
      [runs, places, ms] = [runs + scored.runs, places + 1, ms + performance.now() - start];
      for (const [term, b] of best) {
        const rank = scored.ranked.findIndex((r) => r.phrase === term) + 1;
        const here = scored.ranked[rank - 1]!;
        if (here.logprob > -Infinity && (rank < b.rank || (rank === b.rank && here.logprob > b.logprob))) best.set(term, { ...here, rank, word: words[w]!.text.trim() });
      }
      if (scored.ranked[0]!.logprob > top.logprob) top = { ...scored.ranked[0]!, word: words[w]!.text.trim() };
    }
    const parts = [...best].map(([term, b]) => (bestRanks.push(b.rank), b.rank === Infinity ? `${term}: first token below ${FIRST_TOKEN_FLOOR} everywhere` : `${term}: #${b.rank} at "${b.word}" (${b.logprob.toFixed(1)}, first token ${b.firstToken.toFixed(1)})`));
    if (clip.kind === 'unrelated' && top.phrase) unrelatedTop.push(top.logprob);
    log(`${clip.file}: ${text}\n  ${[...parts, top.phrase ? `likeliest: ${top.phrase} at "${top.word}" (${top.logprob.toFixed(1)}, first token ${top.firstToken.toFixed(1)})` : 'no unsure word'].join('\n  ')}`);
  }
  const within = (k: number) => bestRanks.filter((r) => r <= k).length;
  log(`model ${process.env.MODEL ?? 'whisper-base'}: ${bestRanks.length} terms the unbiased pass missed; first at some unsure place ${within(1)}, in the top 3 ${within(3)}, top 10 ${within(10)}`);
  log(`unrelated clips' likeliest phrase at an unsure place, sorted: ${unrelatedTop.sort((a, b) => b - a).map((l) => l.toFixed(1)).join(' ')}`);
  log(`${places} places scored: ${(runs / Math.max(1, places)).toFixed(0)} decoder runs and ${(ms / Math.max(1, places) / 1000).toFixed(1)} s per place`);
});
