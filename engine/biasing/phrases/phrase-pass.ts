import { isSilence, type DecodeOptions } from '../../decoding/fallback';
import type { EncodedWindow, WhisperModel } from '../../whisper/model';
import { decodeLoop, endedWithEot, passDraft, passProcessors, passStops, repeatsTail, type Generation } from '../../whisper/generate';
import { PARAM_LIMITS } from '../../../src/api/params';
import { DEFAULT_BIAS_STRENGTH } from '../../protocol';
import { createBiasProcessor } from './processor';
import { MAX_PROMPT_PHRASES, phrasePrompt, promptForPhrases } from './prompt';
import { hunks, nearPlaces, normalized, occurrences, phrasesGained, phrasesLost, withHunks, type Hunk, type NearPlaces, type ScoredIds } from './hunks';
import { rankPhrases } from './shortlist';
import { passWords, sameSoundPhrases, splicePhrase, unsureStretches, type PassWords } from './splice';

/**
 * Log-probability (scored without the phrase prompt) a transcription may lose per listed phrase it
 * gains, at the default strength, and still be kept. Chosen on the flite bias set: phrases truly spoken
 * and proposed cost at most 20, names proposed into unrelated speech 29 or more (bench/bias-set/README.md).
 */
export const PHRASE_CREDIT = 24;

/**
 * The share of the credit a splice earns: no decoding proposed it, the model only scored it. True splices
 * cost at most 14.5 on the real-speech set and mostly under 14 on the flite set; listed names spliced over
 * other words, 17.4 and up (bench/bias-set/README.md).
 */
const SPLICE_CREDIT_SHARE = 2 / 3;

/**
 * A word the pass wrote with a log-probability below this (splice.ts runLogprob; a probability of about
 * 0.55) is unsure: only there, or where it split a listed name into words, may a phrase be missing. On the
 * flite set misheard names were written at -0.67 to -2.0, unrelated words mostly above -0.3.
 */
export const UNSURE = -0.6;

/**
 * How alike (shortlist.ts soundMatch) the unsure words must sound to a phrase for it to be a candidate:
 * on the flite set names were proposed over look-alikes of at least 0.43 ("auto" for Xarelto), and the one
 * proposed into unrelated speech over 0.33.
 */
const CANDIDATE_MIN_SIM = 0.4;

/** Splices scored per window, the most alike first: each is a teacher-forced decoder run. */
const SPLICES_SCORED = 3;

/**
 * Tokens of the first pass drafted ahead of the proposal at each step (decodeLoop's draft): the proposal
 * repeats most of the first pass, and a decoder run over many tokens costs little more than over one.
 */
const DRAFT_TOKENS = 16;

/**
 * The least share of the first pass's text tokens a proposal must keep: a log-probability is a sum over
 * tokens, so a proposal that writes one name and stops looks likelier than the whole transcription.
 */
const MIN_TEXT_KEPT = 0.6;

/** How a bias_strength is spent: the trie's boost (strength × TOKEN_BOOST per token) and the credit. */
export interface BiasPlan {
  strength: number;
  /** Log-probability each phrase gained may cost and still be kept. */
  credit: number;
}

/**
 * bias_strength 0 is off (the unbiased pass only). Above 0 it sets the boost, and the credit grows with
 * its square root: at 1 it is 36, and proposals into unrelated speech begin to pass (the spec's warning).
 */
export function biasPlan(strength: number): BiasPlan | null {
  if (!(strength > 0)) return null;
  return { strength, credit: PHRASE_CREDIT * Math.sqrt(strength / DEFAULT_BIAS_STRENGTH) };
}

/** What one candidate was weighed as (for measurements). */
export interface PhraseComparison {
  gained: string[];
  lost: string[];
  /** How much less likely the candidate is than the first pass, without the phrase prompt, in all. */
  cost: number;
  /** What it is credited per phrase gained. */
  credit: number;
  biasedText: string;
  how: string;
  /** Phrases it gained that did not pay for themselves where they were written. */
  unpaid: string[];
}

/**
 * Phrase biasing as one second look at a window decoded without it (`first`), in five steps:
 * 1. a phrase may be missing only where the pass was unsure of its words, or wrote a listed name as
 *    words that sound the same ("play right"); the phrases that sound most like those words are the
 *    candidates, and a window with none is final;
 * 2. the window is decoded once more with the candidates as Whisper's previous-text prompt and a trie
 *    that boosts tokens extending one (an abandoned partial match gives its boost back): the proposal;
 *    and each candidate is written over the words that sound most like it: the splices;
 * 3. a screen scores the places where these tries gain a phrase beside the first pass in one decoder run,
 *    and drops the tries with no place near paying;
 * 4. the rest are scored by the model without the prompt, and the likeliest once credited per phrase it
 *    gained (and debited per listed phrase it lost) is kept if it beats the first pass; each place where
 *    it differs must pay for the phrases written there (hunks.ts), and a proposal where some do not is
 *    weighed again with only those that do;
 * 5. bias_strength is the one knob: it sets the boost and the credit.
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
  const words = passWords(vocab, first.tokens);
  const unsure = unsureStretches(words, UNSURE);
  const sameSound = sameSoundPhrases(vocab, words, phrases);
  const ranked = unsure ? rankPhrases(unsure, phrases, CANDIDATE_MIN_SIM, MAX_PROMPT_PHRASES) : [];
  const candidates = phrasePrompt(vocab, [...new Set([...sameSound, ...ranked])]).phrases;
  if (candidates.length === 0) return first;
  const tries = [...(await proposal(model, encoded, opts, first, words, candidates, sameSound.length > 0, plan)), ...splices(model, words, candidates, sameSound)];
  const firstText = textOf(vocab, first.tokens);
  const held = phrases.filter((p) => occurrences(firstText, p) > 0);
  const frame = { language: opts.language, ...(opts.promptIds ? { promptIds: opts.promptIds } : {}) };
  // a name among N listed is a priori N/250 times less likely the one spoken
  const credit = plan.credit - listSurcharge(phrases.length);
  const firstIds = ids(first.tokens);
  let firstScored: ScoredIds | null = null;
  let best: Weighed | null = null;
  // every phrase pays for itself where it was written: a credit summed over the candidate would let one
  // true name pay for a false one, or for words it broke elsewhere
  const pays = (t: Candidate, h: Hunk, margin = 0) => h.cost - margin <= credit * (t.share * h.gained.length - h.lost.length);
  const textOfTry = (t: Candidate) => textOf(vocab, t.ids.map((id) => ({ id })));
  const weigh = async (t: Candidate, whole: boolean): Promise<void> => {
    const text = textOfTry(t);
    const gained = phrasesGained(firstText, text, candidates);
    if (gained.length === 0) return;
    const lost = phrasesLost(firstText, text, held);
    opts.checkpoint?.();
    firstScored ??= { ids: firstIds, logprobs: await model.score(encoded, frame, firstIds) };
    const logprobs = await model.score(encoded, frame, t.ids);
    const places = hunks(vocab, firstScored, { ids: t.ids, logprobs }, candidates, held);
    const gaining = places.filter((h) => h.gained.length > 0);
    const paying = gaining.filter((h) => pays(t, h));
    const unpaid = gaining.filter((h) => !paying.includes(h));
    const cost = sum(firstScored.logprobs) - sum(logprobs);
    onCompare?.({ gained, lost, cost, credit: credit * t.share, biasedText: text, how: t.how, unpaid: unpaid.flatMap((h) => h.gained) });
    if (unpaid.length === 0) {
      const credited = -cost + credit * (t.share * gained.length - lost.length);
      if (credited > 0 && (!best || credited > best.credited)) best = { ids: t.ids, logprobs, credited };
    } else if (whole && paying.length > 0) {
      // only the places that pay, written into the first pass, weighed again
      const pruned = withHunks(firstIds, t.ids, paying);
      if (timestampsInOrder(vocab, pruned)) await weigh({ ids: pruned, how: `${t.how}, paying places only`, share: t.share }, false);
    }
  };
  // The screen: the places where the tries gain a phrase are scored beside the first pass in one decoder
  // run (scoreTargets: the tokens they share decoded once, only those places and SCREEN_TAIL tokens after
  // each projected onto the vocabulary), and only a try with a place that pays there within SCREEN_MARGIN
  // is weighed as above, by whole runs of its own.
  const gainers = tries.flatMap((t) => {
    const places = hunks(vocab, unscored(firstIds), unscored(t.ids), candidates, held);
    return places.some((h) => h.gained.length > 0) ? [{ t, near: nearPlaces(places, SCREEN_TAIL, firstIds.length) }] : [];
  });
  for (const group of scoringGroups(gainers)) {
    opts.checkpoint?.();
    const union = [...new Set(group.flatMap((g) => g.near.first))];
    const [own, ...screened] = await model.scoreTargets(encoded, frame, [firstIds, ...group.map((g) => g.t.ids)], [union, ...group.map((g) => g.near.candidate)]);
    for (const [i, { t, near }] of group.entries()) {
      // each try's places read the first pass's targets near its own places only: elsewhere both count 0
      const mine = new Set(near.first);
      const firstHere = own!.map((lp, k) => (mine.has(k) ? lp : 0));
      const places = hunks(vocab, { ids: firstIds, logprobs: firstHere }, { ids: t.ids, logprobs: screened[i]!.map((lp) => lp || 0) }, candidates, held);
      if (places.some((h) => h.gained.length > 0 && pays(t, h, SCREEN_MARGIN))) await weigh(t, true);
    }
  }
  if (!best) return first;
  const won: Weighed = best;
  const tokens = won.ids.map((id, i) => ({ id, logprob: won.logprobs[i]! }));
  const kept: Generation = { ...first, tokens, avgLogprob: sum(won.logprobs) / won.logprobs.length, looped: false, attention: null };
  if (!opts.wantAttention) return kept;
  // aligned as it was scored: without the phrase prompt
  const f = model.framing(encoded, opts);
  return { ...kept, attention: await model.attentionRows(encoded, f.prompt, won.ids, endedWithEot(won.ids, vocab, f)) };
}

interface Weighed {
  ids: number[];
  logprobs: number[];
  /** Its log-probability over the first pass's, plus the credit for what it gained. */
  credited: number;
}

interface Candidate {
  ids: number[];
  how: string;
  /** The share of the credit it earns per phrase gained. */
  share: number;
}

/** The window decoded greedily with the candidates as prompt and boosted by their trie; none if it looped or stopped short. */
async function proposal(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  first: Generation,
  words: PassWords,
  candidates: readonly string[],
  sameSound: boolean,
  plan: BiasPlan,
): Promise<Candidate[]> {
  const vocab = model.vocab;
  // the likeliest last: nearest the transcript it steers
  const promptIds = [...(opts.promptIds ?? []), ...promptForPhrases(vocab, [...candidates].reverse())];
  const bias = createBiasProcessor(vocab, candidates, plan.strength);
  const until = settledProposal(vocab, first, words, sameSound);
  // a name may take more tokens than what it replaces, but a prompted pass that lists names past the speech is stopped
  const f = model.framing(encoded, { ...opts, promptIds, maxTokens: Math.ceil(first.tokens.length * 1.5) + 8 });
  // the first pass's tokens before the word ahead of its first unsure word are forced, in one decoder run:
  // every candidate sounds like words from there on (a same-sounding phrase may be anywhere: none forced)
  const prefix = first.tokens.slice(0, sameSound ? 0 : forcedUntil(words));
  opts.checkpoint?.();
  const start = await model.startAfter(encoded, { language: opts.language, promptIds }, ids(prefix));
  const result = await decodeLoop(model, encoded, { ...start, attention: null, tokens: prefix }, {
    processors: passProcessors(vocab, f.maxTsIndex, { processors: [...(opts.processors ?? []), (logits: Float32Array, generated: readonly number[]) => bias.adjustLogits(logits, generated)] }),
    stops: passStops(vocab, f.maxTsIndex, { loops: recites(vocab, candidates), loopRepeats: proposalLoopRepeats(vocab, first), ...(until ? { until } : {}) }),
    maxTokens: f.maxTokens,
    temperature: 0,
    wantAttention: false,
    draft: passDraft(ids(first.tokens), DRAFT_TOKENS),
    ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}),
  });
  const kept = textIds(vocab, result.tokens).length >= MIN_TEXT_KEPT * textIds(vocab, first.tokens).length;
  return result.stop === 'loop' || !kept ? [] : [{ ids: ids(result.tokens), how: 'proposal', share: 1 }];
}

/**
 * How far past its credit a place may cost in the screen and still be weighed by runs of its own, which
 * round the decoder's activations differently and count the whole tail. Over the 464 tries weighed on the
 * development bias sets, a place cost at most 3.1 nats more in the screen at the 99th percentile (8.0 at
 * most), and no try with a place that paid in whole runs would have been screened out with a margin of 1
 * or more (bench/bias-set/README.md, "The screen scores only the places").
 */
const SCREEN_MARGIN = 6;

/**
 * Unchanged tokens after a place that the screen scores; the rest of the context a change gave another
 * start counts as equal there (the weighing counts it). On the development bias sets (467 places) what
 * lies past 4 tokens would have charged a place more by 1.4 nats at the 1st percentile, 5.5 at most,
 * while the first 4 carry most of what a change does to its context (bench/bias-set/README.md, the same section).
 */
const SCREEN_TAIL = 4;

/**
 * Rows a scoring run projects onto the vocabulary at most (about 50 MB of logits with Whisper's 51,865
 * tokens), about what one run over a whole window's tokens did: tries are screened in groups within it.
 */
const SCORED_ROWS = 256;

/** The tries to screen in groups, each scored in one run within SCORED_ROWS (a try alone may exceed it). */
function scoringGroups<T extends { near: NearPlaces }>(tries: readonly T[]): T[][] {
  const rows = (group: readonly T[]) => new Set(group.flatMap((g) => g.near.first)).size + group.reduce((n, g) => n + g.near.candidate.length, 0);
  const groups: T[][] = [];
  for (const t of tries) {
    const last = groups[groups.length - 1];
    if (last && rows([...last, t]) <= SCORED_ROWS) last.push(t);
    else groups.push([t]);
  }
  return groups;
}

/** Token index of the start of the word before the pass's first unsure word (0 if that is the first word). */
function forcedUntil(pass: PassWords): number {
  const first = pass.sureness.findIndex((s) => s < UNSURE);
  return first > 0 ? pass.words[first - 1]!.start : 0;
}

/** Whether the timestamps of `tokens` never go back: a pass mended in some places only must stay one. */
function timestampsInOrder(vocab: WhisperModel['vocab'], tokens: readonly number[]): boolean {
  const times = tokens.filter((id) => vocab.isTimestamp(id));
  return times.every((id, i) => i === 0 || id >= times[i - 1]!);
}

/** Each candidate written over the unsure (or same-sounding) words most like it, the SPLICES_SCORED most alike. */
function splices(model: WhisperModel, words: PassWords, candidates: readonly string[], sameSound: readonly string[]): Candidate[] {
  return candidates
    .flatMap((phrase) => {
      const splice = splicePhrase(model.vocab, words, phrase, CANDIDATE_MIN_SIM);
      return splice && (splice.replacedLogprob < UNSURE || sameSound.includes(phrase)) ? [splice] : [];
    })
    .sort((a, b) => b.match.sim - a.match.sim)
    .slice(0, SPLICES_SCORED)
    .map((s) => ({ ids: s.ids, how: `splice over "${s.replaced}"`, share: SPLICE_CREDIT_SHARE }));
}

/**
 * What hearing a phrase among `count` listed ones needs beyond what it needs among the inline limit's
 * 250, which the credit was set on: a name among N is a priori N/250 times less likely to be the one
 * spoken, so its credit is less by ln(N/250) nats.
 */
export function listSurcharge(count: number): number {
  return Math.log(Math.max(1, count / PARAM_LIMITS.phrases));
}

/**
 * A proposal that repeats an n-gram this often is dropped as looped, where a transcription is given 4:
 * prompted with a long list's look-alikes, a proposal may write two names over and over to its token limit.
 */
const PROPOSAL_LOOP_REPEATS = 3;

/**
 * Repeats that stop a proposal as looped: one more than the unbiased pass said anything in a row, and at
 * most PROPOSAL_LOOP_REPEATS. A proposal is that pass with names mended, so a sentence it says twice where
 * the pass did not is a loop; where the pass said "I don't think so." twice, a proposal may too.
 */
export function proposalLoopRepeats(vocab: WhisperModel['vocab'], first: Pick<Generation, 'tokens'>): number {
  const text = textIds(vocab, first.tokens);
  for (let end = 4; end <= text.length; end++) if (repeatsTail(text.slice(0, end), 2)) return PROPOSAL_LOOP_REPEATS;
  return 2;
}

/**
 * A stop for a proposal that has come back to the first pass for good: true once its text has repeated
 * the first pass's through the word after its last unsure word, and one token on. Every candidate sounds
 * like words up to there (shortlist.ts reads each unsure word with one word either side), so from there on
 * it could write a phrase only over words the pass was sure of; it is dropped as a proposal that gained
 * nothing, and the rest of the window is not decoded. Undefined where a phrase sounds the same as words
 * the pass split apart (those may be anywhere), or where the pass is unsure to its end.
 */
export function settledProposal(
  vocab: WhisperModel['vocab'],
  first: Pick<Generation, 'tokens'>,
  pass: PassWords,
  sameSound: boolean,
): ((textIds: readonly number[]) => boolean) | undefined {
  if (sameSound) return undefined;
  const last = pass.sureness.reduce((at, s, i) => (s < UNSURE ? i : at), -1);
  const until = pass.words[Math.min(last + 1, pass.words.length - 1)]?.end ?? 0;
  const firstText = textIds(vocab, first.tokens);
  const settled = firstText.slice(0, first.tokens.slice(0, until).filter((t) => vocab.isText(t.id)).length + 1);
  if (last < 0 || settled.length >= firstText.length) return undefined;
  return (ids) => ids.length === settled.length && settled.every((id, i) => ids[i] === id);
}

/** Text tokens recites() reads back from a proposal's end: a recital is a run of short names. */
const RECITAL_TOKENS = 32;

/**
 * A proposal whose text ends in a run of its listed phrases, with nothing but punctuation between them,
 * that holds one phrase twice is reciting its prompt ("Dandlisk, Zintan, Drarstior, Zintan"): it is
 * stopped there as looped. A name said twice in speech has other words between.
 */
export function recites(vocab: WhisperModel['vocab'], phrases: readonly string[]): (textIds: readonly number[]) => boolean {
  const keys = [...new Set(phrases.map(normalized))].filter((p) => p.trim() !== '');
  return (textIds) => {
    if (textIds.length < 2) return false;
    let rest = normalized(vocab.decode(textIds.slice(-RECITAL_TOKENS)));
    const seen = new Set<string>();
    for (;;) {
      const key = keys.find((k) => rest.endsWith(k));
      if (!key) return false;
      if (seen.has(key)) return true;
      seen.add(key);
      // keep the space the key began with: the next phrase back ends in it
      rest = rest.slice(0, rest.length - key.length + 1);
    }
  };
}

const ids = (tokens: readonly { id: number }[]) => tokens.map((t) => t.id);

/** `ids` with log-probabilities of 0: where hunks() finds places without weighing them. */
const unscored = (ids: readonly number[]): ScoredIds => ({ ids, logprobs: ids.map(() => 0) });

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** A pass's text tokens, without its timestamps. */
function textIds(vocab: WhisperModel['vocab'], tokens: readonly { id: number }[]): number[] {
  return tokens.filter((t) => vocab.isText(t.id)).map((t) => t.id);
}

const textOf = (vocab: WhisperModel['vocab'], tokens: readonly { id: number }[]) => vocab.decode(textIds(vocab, tokens));

