/**
 * `node bench/bias-set/real-terms.mjs RUN.json [RUN.json ...] > bench/bias-set/real-speech.json`
 *
 * The real-speech biasing set: the rare words of ../shared/eval/en and ../shared/dev/en that Whisper
 * misses unbiased. RUN.json are `npm run eval -- --out` results of those folders (any models, unbiased).
 * A term is a word of a human reference that Whisper's tokenizer splits into at least RARE_TOKENS
 * pieces after a space (names, jargon, archaic words: ordinary words are one or two) and that at least
 * one run's transcript of that clip lacks (`path` is under ../shared). Numbers are left out: "17" against "seventeen" is the
 * normaliser's business, not biasing's. Each term goes to the `tune` or the `report` half by a hash of its
 * text, so the halves do not move when the runs do. ../shared/holdout is never read.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SHARED = resolve(ROOT, process.env.STS_EVAL_DIR ?? '../shared/eval', '..');
const FOLDERS = ['eval/en', 'dev/en'];
const RARE_TOKENS = 3;

const model = (f) => JSON.parse(readFileSync(resolve(ROOT, 'public/models/whisper-base', f), 'utf8'));
const tokenizer = new Tokenizer(model('tokenizer.json'), model('tokenizer_config.json'));
const pieces = (word) => tokenizer.encode(` ${word}`, { add_special_tokens: false }).ids.length;
const normalized = (s) => ` ${s.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, ' ').trim()} `;

function fnv(text) {
  let h = 0x811c9dc5;
  for (const ch of text) h = Math.imul(h ^ ch.codePointAt(0), 0x01000193) >>> 0;
  return h;
}

const runs = process.argv.slice(2).flatMap((f) => JSON.parse(readFileSync(f, 'utf8')));
if (runs.length === 0) {
  console.error('usage: node bench/bias-set/real-terms.mjs RUN.json [...] (npm run eval -- --out results of eval/en and dev/en)');
  process.exit(2);
}
const clips = [];
for (const folder of FOLDERS) {
  const manifest = JSON.parse(readFileSync(resolve(SHARED, folder, 'manifest.json'), 'utf8'));
  for (const clip of manifest) {
    if (!clip.text || !/human/.test(clip.ref_quality ?? '')) continue;
    const heard = runs.filter((r) => r.file === clip.file).map((r) => normalized(r.transcript.text));
    if (heard.length === 0) continue;
    // all-capitals references (LibriSpeech) are written as sentence case, as Whisper writes them
    const shout = clip.text === clip.text.toUpperCase();
    const words = new Set((clip.text.match(/\p{L}[\p{L}'-]*/gu) ?? []).map((w) => (shout ? w[0] + w.slice(1).toLowerCase() : w)));
    const terms = [...words].filter((w) => pieces(w) >= RARE_TOKENS && heard.some((h) => !h.includes(normalized(w))));
    if (terms.length === 0) continue;
    clips.push({
      path: `${folder}/${clip.file}`,
      text: clip.text,
      duration_s: clip.duration_s,
      terms: terms.map((t) => ({ term: t, half: fnv(t.toLowerCase()) % 2 === 0 ? 'tune' : 'report' })),
    });
  }
}
console.log(JSON.stringify({ rule: `words of >= ${RARE_TOKENS} tokens that an unbiased run missed`, runs: [...new Set(runs.map((r) => r.model))], clips }, null, 1));
