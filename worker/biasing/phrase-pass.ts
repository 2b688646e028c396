import { isSilence, type DecodeOptions } from '../decode-window';
import { endedWithEot, type EncodedWindow, type Generation, type WhisperModel } from '../whisper';
import { createBiasProcessor } from './processor';
import { phrasePrompt, promptForPhrases } from './prompt';
import { rankPhrases } from './shortlist';

/** The default bias_strength (spec 4.3). */
export const DEFAULT_STRENGTH = 0.45;

/**
 * Log-probability a listed phrase may cost, at the default strength, and still be kept: how much less
 * likely the unbiased model may find a transcription for holding it. On the bias set (bench/bias-set/
 * README.md) phrases truly spoken and proposed cost at most 20, names proposed into unrelated speech 29
 * or more. Per phrase, not per token: once a long made-up name is begun its further tokens are cheap.
 */
export const PHRASE_CREDIT = 24;

/** How a bias_strength is spent (see decodeWithPhrases). */
export interface BiasPlan {
  /** One biased pass per entry, with that strength for the trie processor (boost = strength × TOKEN_BOOST per token). */
  proposals: number[];
  /** Beam size of the biased passes (1: greedy). */
  beam: number;
  /** Log-probability each gained phrase may cost and still be kept, when the passes are compared. */
  credit: number;
}

/**
 * bias_strength 0 is off (the unbiased pass only). Above 0 the strength sets the credit, growing with its
 * square root: at 1 it is 36, and proposals into unrelated speech begin to pass (the spec's warning).
 */
export function biasPlan(strength: number): BiasPlan | null {
  if (!(strength > 0)) return null;
  return { proposals: [DEFAULT_STRENGTH, 1], beam: 1, credit: PHRASE_CREDIT * Math.sqrt(strength / DEFAULT_STRENGTH) };
}

/** What a comparison of the passes saw (for measurements). */
export interface PhraseComparison {
  gained: string[];
  /** How much less likely the biased pass is, per phrase it gained, without the phrase prompt. */
  costPerPhrase: number;
  biasedText: string;
}

/**
 * Phrase biasing as a second look at a window that was decoded without it (`first`):
 * 1. the phrases that sound most like something in the first transcription are picked (shortlist.ts),
 *    as many as fit a short prompt, and given to Whisper as if a previous window had said them;
 * 2. the window is decoded again with that prompt, boosting tokens that extend a listed phrase
 *    (processor.ts: an abandoned partial match gives its boost back), once per proposal strength;
 * 3. passes that hold listed phrases the first did not are scored by the model without the phrase
 *    prompt; the likeliest wins, each biased pass credited `credit` per phrase it gained.
 * Speech that sounds like no phrase keeps its unbiased transcription: the prompt and the boost, which
 * on their own insert names and change style, only propose.
 */
export async function decodeWithPhrases(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  first: Generation,
  phrases: readonly string[],
  plan: BiasPlan,
  onCompare?: (comparison: PhraseComparison) => void,
): Promise<Generation> {
  if (phrases.length === 0 || isSilence(first)) return first;
  const vocab = model.vocab;
  const firstText = textOf(model, first);
  // the likeliest phrases that fit the prompt, the likeliest last: nearest the transcript it steers
  const shortlist = phrasePrompt(vocab, rankPhrases(firstText, phrases)).phrases;
  const promptIds = [...(opts.promptIds ?? []), ...promptForPhrases(vocab, [...shortlist].reverse())];
  const frame = { language: opts.language, ...(opts.promptIds ? { promptIds: opts.promptIds } : {}) };
  const ids = (gen: Generation) => gen.tokens.map((t) => t.id);
  let best = first;
  let firstScore: number | null = null;
  let bestScore = -Infinity;
  const tried = new Set<string>();
  // decoded without attention: only a winning proposal is aligned, once, below
  const proposalOpts = { ...opts, wantAttention: false, promptIds, maxTokens: proposalLimit(first) };
  for (const strength of plan.proposals) {
    const proposal = await propose(model, encoded, proposalOpts, createBiasProcessor(vocab, shortlist, strength), plan.beam);
    const text = textOf(model, proposal);
    // a pass that fell into a loop proposes the loop, not the phrase
    if (proposal.looped || tried.has(text)) continue;
    tried.add(text);
    const gained = shortlist.filter((p) => occurrences(text, p) > occurrences(firstText, p));
    if (gained.length === 0) continue;
    if (firstScore === null) bestScore = firstScore = await model.sequenceLogprob(encoded, frame, ids(first));
    const score = await model.sequenceLogprob(encoded, frame, ids(proposal));
    onCompare?.({ gained, costPerPhrase: (firstScore - score) / gained.length, biasedText: text });
    // once per phrase, however often it was gained: a pass that repeats a name must not earn credit by it
    const credited = score + plan.credit * gained.length;
    if (credited > bestScore) [best, bestScore] = [proposal, credited];
  }
  if (best === first || !opts.wantAttention) return best;
  opts.checkpoint?.();
  const f = model.framing(encoded, proposalOpts);
  const bestIds = ids(best);
  return { ...best, attention: await model.attentionRows(encoded, f.prompt, bestIds, endedWithEot(bestIds, vocab, f)) };
}

/**
 * A proposal may run somewhat longer than the unbiased pass (a name can take more tokens than what it
 * replaces), not on and on: a prompted pass that lists names past the speech is stopped early.
 */
function proposalLimit(first: Generation): number {
  return Math.ceil(first.tokens.length * 1.5) + 8;
}

/**
 * One biased pass at temperature 0 only: the temperature fallback's sampled passes made proposals
 * several times dearer (base: 9x the unbiased decoding time) for the rare name they found.
 */
function propose(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  bias: ReturnType<typeof createBiasProcessor>,
  beam: number,
): Promise<Generation> {
  const adjust = opts.adjustLogits;
  return model.generate(encoded, {
    ...opts,
    temperature: 0,
    adjustLogits: (logits, generated) => {
      adjust?.(logits, generated);
      bias.adjustLogits(logits, generated);
    },
    ...(beam > 1 ? { beam: { size: beam, bias, ...(adjust ? { adjustLogits: adjust } : {}) } } : {}),
  });
}

function textOf(model: WhisperModel, gen: Generation): string {
  return model.vocab.decode(gen.tokens.filter((t) => model.vocab.isText(t.id)).map((t) => t.id));
}

const normalized = (s: string) => ` ${s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;

/** Whole-word occurrences of `phrase` in `text`, ignoring case and punctuation. */
export function occurrences(text: string, phrase: string): number {
  const p = normalized(phrase);
  return p.trim() ? normalized(text).split(p).length - 1 : 0;
}
