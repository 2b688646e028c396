/**
 * What the right words would cost: for each bias term of the phrase clips, the unbiased pass with the
 * run of words where it differs from the reference around that term replaced by the reference's words
 * ("and got away" → "in Galway"), in the pass's own tokens, scored without any prompt as phrase-pass.ts's
 * judge scores a candidate. A term whose cost is below the credit would be kept if a splice or proposal
 * wrote it so; recall short of that ceiling is lost in finding candidates, not in judging them.
 * The real clip, which has no reference transcript, is left out. Env: MODEL (default whisper-base), VOICES=slt,kal (subset), ONLY=regex (clip files), LOG=file.
 */
import { join } from 'node:path';
import { diffArrays } from 'diff';
import { it } from 'vitest';
import { decodeWindow } from '../../engine/decoding/fallback';
import { PHRASE_CREDIT } from '../../engine/biasing/phrases/phrase-pass';
import { occurrences } from '../../engine/biasing/phrases/hunks';
import { tokenWords } from '../../engine/biasing/phrases/splice';
import type { WhisperModel } from '../../engine/whisper/model';
import { generateBiasSet } from './generate.mjs';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { log } from './progress-log';

const wordKey = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** A run of the pass's words [start, end) and the reference's words that differ there. */
interface Difference {
  start: number;
  end: number;
  reference: string[];
}

/** Where `heard` and `reference` (words, punctuation ignored) differ, by a word diff. */
function differences(heard: readonly string[], reference: readonly string[]): Difference[] {
  const out: Difference[] = [];
  let at = 0;
  let open: Difference | null = null;
  for (const change of diffArrays(heard.map(wordKey), reference.map(wordKey))) {
    if (!change.added && !change.removed) {
      if (open) out.push(open);
      open = null;
      at += change.count;
      continue;
    }
    open ??= { start: at, end: at, reference: [] };
    if (change.removed) open.end = at += change.count;
    else open.reference.push(...change.value);
  }
  if (open) out.push(open);
  return out;
}

/** The reference's own spelling of words it holds as keys: diffArrays returns the keys it compared. */
function spelled(referenceWords: readonly string[], keys: readonly string[]): string {
  const byKey = new Map(referenceWords.map((w) => [wordKey(w), w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')]));
  return keys.map((k) => byKey.get(k) ?? k).join(' ');
}

/** The unbiased pass over `file`, and per term: held by it, or the cost of the reference's words around it. */
async function termCosts(model: WhisperModel, file: string, reference: string, terms: readonly string[]) {
  const v = model.vocab;
  const enc = await encodeClip(model, readAudio(file));
  const first = await decodeWindow(model, enc.encoded, { language: 'en', wantAttention: false, audioSeconds: enc.seconds });
  const frame = { language: 'en' };
  const ids = first.tokens.map((t) => t.id);
  const firstScore = await model.sequenceLogprob(enc.encoded, frame, ids);
  const words = tokenWords(v, first.tokens);
  const text = v.decode(ids.filter((id) => v.isText(id))).trim();
  const refWords = reference.split(/\s+/);
  const costs = new Map<string, { heard: string; written: string; cost: number } | 'held'>();
  for (const term of terms) if (occurrences(text, term) > 0) costs.set(term, 'held');
  for (const d of differences(words.map((w) => w.text), refWords)) {
    const written = spelled(refWords, d.reference);
    const found = terms.filter((t) => !costs.has(t) && occurrences(written, t) > 0);
    if (found.length === 0) continue;
    const from = d.start < words.length ? words[d.start]!.start : words[words.length - 1]!.end;
    const to = d.end > d.start ? words[d.end - 1]!.end : from;
    const candidate = [...ids.slice(0, from), ...v.encode(` ${written}`), ...ids.slice(to)];
    const cost = firstScore - (await model.sequenceLogprob(enc.encoded, frame, candidate));
    const heard = to > from ? v.decode(ids.slice(from, to)).trim() : '';
    for (const term of found) costs.set(term, { heard, written, cost });
  }
  return { text, costs };
}

it('cost of the right words for each bias term', async () => {
  const { dir, clips } = generateBiasSet();
  const voices = process.env.VOICES?.split(',');
  const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
  const selected = clips.filter((c) => c.kind === 'phrase' && c.text && (!voices || voices.includes(c.speaker.slice(6))) && (!only || only.test(c.file)));
  const model = await loadNodeWhisper(process.env.MODEL ?? 'whisper-base');
  const all: number[] = [];
  let held = 0;
  let terms = 0;
  for (const clip of selected) {
    const { text, costs } = await termCosts(model, join(dir, clip.file), clip.text!, clip.must_contain ?? []);
    const parts = (clip.must_contain ?? []).map((term) => {
      terms++;
      const c = costs.get(term);
      if (c === 'held') return (held++, `${term}: held`);
      if (!c) return `${term}: not found in a difference`;
      all.push(c.cost);
      return `${term}: "${c.heard}" → "${c.written}" cost ${c.cost.toFixed(2)}`;
    });
    log(`${clip.file}: ${text}\n  ${parts.join('\n  ')}`);
  }
  const within = (limit: number) => all.filter((c) => c <= limit).length;
  const share = (n: number) => `${n}/${terms} = ${((n / terms) * 100).toFixed(1)}%`;
  log(`model ${process.env.MODEL ?? 'whisper-base'}: ${terms} terms, ${held} held by the unbiased pass`);
  for (const limit of [8, 16, PHRASE_CREDIT]) log(`held, or the right words cost at most ${limit}: ${share(held + within(limit))}`);
  log(`costs of the rest, sorted: ${all.sort((a, b) => a - b).map((c) => c.toFixed(1)).join(' ')}`);
});
