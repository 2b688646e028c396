import { isSilence, type DecodeOptions } from '../../decoding/fallback';
import type { EncodedWindow, WhisperModel } from '../../whisper/model';
import { decodeLoop, passDraft, passProcessors, passStops, repeatsTail, rewrittenPass, type Generation } from '../../whisper/generate';
import { PARAM_LIMITS } from '../../../src/api/params';
import { PHRASES_PER_MODEL_MAX } from '../../../src/store/custom-model-rules';
import { DEFAULT_BIAS_STRENGTH } from '../../protocol';
import { biasProcessor } from './processor';
import { MAX_PROMPT_PHRASES, phrasePrompt } from './prompt';
import { hunks, nearPlaces, normalized, occurrences, phrasesGained, withHunks, type Hunk, type NearPlaces, type ScoredIds } from './hunks';
import { rankPhrases } from './shortlist';
import { passWords, sameSoundPhrases, splicePhrase, UNSURE, type PassWords } from './splice';

/**
 * Log-probability (scored without the phrase prompt) a transcription may lose per listed phrase it
 * gains at the default strength. Flite set: true phrases cost ≤ 20, names put into unrelated speech ≥ 29.
 */
export const PHRASE_CREDIT = 24;

/**
 * The share of the credit a splice earns, as no decoding proposed it. Real-speech set: true splices cost
 * ≤ 14.5, listed names spliced over other words ≥ 17.4.
 */
const SPLICE_CREDIT_SHARE = 2 / 3;

/**
 * How alike (soundMatch) a run of words holding an unsure one must sound to a phrase of a 250-phrase list
 * for it to be a candidate. Flite set: names were proposed over look-alikes ≥ 0.43, the one proposed into
 * unrelated speech over 0.33.
 */
const CANDIDATE_MIN_SIM = 0.4;

/**
 * The same for a custom model at its limit: a longer list sounds like more by chance. Unbiased passes of
 * dev/en and dev/diar, 10,000 made-up phrases of 3-6 words: from 0.46 no more windows have a candidate
 * than of 250 at 0.4 (tiny 2 against 4 of 56, base 3 against 5 of 65; chance.measure.ts).
 */
const CANDIDATE_MIN_SIM_AT_LIMIT = 0.46;

/** A candidate's least similarity for a list of `count` phrases: rising with ln(count / 250), as the credit falls. */
export function candidateMinSim(count: number): number {
  return CANDIDATE_MIN_SIM + ((CANDIDATE_MIN_SIM_AT_LIMIT - CANDIDATE_MIN_SIM) * listSurcharge(count)) / listSurcharge(PHRASES_PER_MODEL_MAX);
}

/** Splices scored per window, the most alike first: each is a teacher-forced decoder run. */
const SPLICES_SCORED = 3;

/** Tokens of the first pass drafted ahead of the proposal (decodeLoop's draft): it repeats most of them. */
const DRAFT_TOKENS = 16;

/**
 * A proposal's most tokens: PROPOSAL_LENGTH times the first pass's and PROPOSAL_EXTRA_TOKENS more. A name
 * may take more tokens than what it replaces, but a prompted pass that lists names past the speech stops.
 */
const PROPOSAL_LENGTH = 1.5;
const PROPOSAL_EXTRA_TOKENS = 8;

/** The least share of the first pass's text a proposal keeps: one that writes a name and stops looks likelier. */
const MIN_TEXT_KEPT = 0.6;

/** How a bias_strength is spent: the trie's boost (strength × TOKEN_BOOST per token) and the credit. */
export interface BiasPlan {
  strength: number;
  /** Log-probability each phrase gained may cost and still be kept. */
  credit: number;
}

/** bias_strength 0 is off. Above it sets the boost, and the credit grows with its square root (36 at 1). */
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
 * Phrase biasing as a second look at a window decoded without it (`first`):
 * 1. candidates: the phrases that sound most like a run of words holding one the pass was unsure of
 *    (candidateMinSim alike at least), or like words it split a listed name into ("play right");
 * 2. tries: one proposal decodes the window again with the candidates as prompt and a trie boosting
 *    tokens that extend one; splices write each candidate over its look-alike words;
 * 3. a screen scores, in one decoder run, the places where tries gain a phrase, and drops tries with
 *    no place near paying;
 * 4. the rest are scored without the prompt; the likeliest once credited per phrase gained (debited per
 *    phrase lost) is kept if it beats the first pass and each place it changed pays for itself (hunks.ts);
 * 5. bias_strength sets the boost and the credit.
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
  const sameSound = sameSoundPhrases(vocab, words, phrases);
  const minSim = candidateMinSim(phrases.length);
  const ranked = words.unsure.includes(true) ? rankPhrases(words, phrases, minSim, MAX_PROMPT_PHRASES) : [];
  const candidates = phrasePrompt(vocab, [...new Set([...sameSound, ...ranked])]).phrases;
  if (candidates.length === 0) return first;
  const tries = [...(await proposal(model, encoded, opts, first, words, candidates, sameSound.length > 0, plan)), ...splices(model, words, candidates, sameSound, minSim)];
  const firstText = textOf(vocab, first.tokens);
  const held = phrases.filter((p) => occurrences(firstText, p) > 0);
  const frame = { language: opts.language, ...(opts.promptIds ? { promptIds: opts.promptIds } : {}) };
  const credit = plan.credit - listSurcharge(phrases.length);
  const firstIds = ids(first.tokens);
  let firstScored: ScoredIds | null = null;
  let best: Weighed | null = null;
  // each place pays for what it wrote: a credit summed over a try would let a true name pay for a false one
  const pays = (t: Candidate, h: Hunk, margin = 0) => h.cost - margin <= credit * (t.share * h.gained.length - h.lost.length);
  const textOfTry = (t: Candidate) => textOf(vocab, t.ids.map((id) => ({ id })));
  const weigh = async (t: Candidate, whole: boolean): Promise<void> => {
    const text = textOfTry(t);
    const gained = phrasesGained(firstText, text, candidates);
    if (gained.length === 0) return;
    const lost = phrasesGained(text, firstText, held);
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
  // the screen: only the places that gain a phrase, and SCREEN_TAIL tokens after each, are scored (one
  // scoreTargets run per group); a try with a place that pays there within SCREEN_MARGIN is weighed whole
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
  return rewrittenPass(model, encoded, opts, first, won.ids.map((id, i) => ({ id, logprob: won.logprobs[i]! })));
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

/** The window decoded greedily, prompted with the candidates and boosted by their trie; none if it looped or stopped short. */
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
  const promptIds = [...(opts.promptIds ?? []), ...phrasePrompt(vocab, [...candidates].reverse()).ids];
  const bias = biasProcessor(vocab, candidates, plan.strength);
  const until = settledProposal(vocab, first, words, sameSound);
  const f = model.framing(encoded, { ...opts, promptIds, maxTokens: Math.ceil(first.tokens.length * PROPOSAL_LENGTH) + PROPOSAL_EXTRA_TOKENS });
  // the first pass's tokens before the word ahead of its first unsure word are forced, in one decoder run:
  // every candidate sounds like words from there on (a same-sounding phrase may be anywhere: none forced)
  const prefix = first.tokens.slice(0, sameSound ? 0 : forcedUntil(words));
  opts.checkpoint?.();
  const start = await model.startAfter(encoded, { language: opts.language, promptIds }, ids(prefix));
  const result = await decodeLoop(model, encoded, { ...start, attention: null, tokens: prefix }, {
    processors: passProcessors(vocab, f.maxTsIndex, { processors: [...(opts.processors ?? []), ...(bias ? [bias] : [])] }),
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
 * How far past its credit a place may cost in the screen (rounded otherwise, without the whole tail) and
 * still be weighed. Development bias sets, 464 tries: screen minus whole ≤ 3.1 nats at the 99th percentile.
 */
const SCREEN_MARGIN = 6;

/**
 * Unchanged tokens after a place that the screen scores (the weighing counts the rest). Development bias
 * sets, 467 places: past 4 tokens a change moves its context 2.75 nats at the 95th percentile.
 */
const SCREEN_TAIL = 4;

/** Rows a screening run projects onto the vocabulary at most (about 50 MB of logits); a memory bound. */
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
  const first = pass.unsure.indexOf(true);
  return first > 0 ? pass.words[first - 1]!.start : 0;
}

/** Whether the timestamps of `tokens` never go back: a pass mended in some places only must stay one. */
function timestampsInOrder(vocab: WhisperModel['vocab'], tokens: readonly number[]): boolean {
  const times = tokens.filter((id) => vocab.isTimestamp(id));
  return times.every((id, i) => i === 0 || id >= times[i - 1]!);
}

/** Each candidate written over the unsure (or same-sounding) words most like it, the SPLICES_SCORED most alike. */
function splices(model: WhisperModel, words: PassWords, candidates: readonly string[], sameSound: readonly string[], minSim: number): Candidate[] {
  return candidates
    .flatMap((phrase) => {
      const splice = splicePhrase(model.vocab, words, phrase, minSim);
      return splice && (splice.replacedLogprob < UNSURE || sameSound.includes(phrase)) ? [splice] : [];
    })
    .sort((a, b) => b.match.sim - a.match.sim)
    .slice(0, SPLICES_SCORED)
    .map((s) => ({ ids: s.ids, how: `splice over "${s.replaced}"`, share: SPLICE_CREDIT_SHARE }));
}

/** The credit a phrase among `count` listed loses: a priori N/250 times less likely the one spoken (ln(N/250)). */
export function listSurcharge(count: number): number {
  return Math.log(Math.max(1, count / PARAM_LIMITS.phrases));
}

/** An n-gram repeated this often stops a proposal as looped (a transcription is given 4). */
const PROPOSAL_LOOP_REPEATS = 3;

/** Repeats that stop a proposal: one more than the unbiased pass made, at most PROPOSAL_LOOP_REPEATS. */
export function proposalLoopRepeats(vocab: WhisperModel['vocab'], first: Pick<Generation, 'tokens'>): number {
  const text = textIds(vocab, first.tokens);
  for (let end = 4; end <= text.length; end++) if (repeatsTail(text.slice(0, end), 2)) return PROPOSAL_LOOP_REPEATS;
  return 2;
}

/**
 * A stop for a proposal back on the first pass for good: its text repeats the first pass's through the
 * word after the last unsure word, and a token on; past there no candidate sounds like anything. Undefined
 * with same-sounding phrases (they may be anywhere) or where the pass is unsure to its end.
 */
export function settledProposal(
  vocab: WhisperModel['vocab'],
  first: Pick<Generation, 'tokens'>,
  pass: PassWords,
  sameSound: boolean,
): ((textIds: readonly number[]) => boolean) | undefined {
  if (sameSound) return undefined;
  const last = pass.unsure.lastIndexOf(true);
  const until = pass.words[Math.min(last + 1, pass.words.length - 1)]?.end ?? 0;
  const firstText = textIds(vocab, first.tokens);
  const settled = firstText.slice(0, first.tokens.slice(0, until).filter((t) => vocab.isText(t.id)).length + 1);
  if (last < 0 || settled.length >= firstText.length) return undefined;
  return (ids) => ids.length === settled.length && settled.every((id, i) => ids[i] === id);
}

/** Text tokens recites() reads back from a proposal's end: a recital is a run of short names. */
const RECITAL_TOKENS = 32;

/**
 * A proposal whose text ends in a run of listed phrases, one of them twice, with only punctuation
 * between, is reciting its prompt ("Zintan, Drarstior, Zintan"): stopped as looped.
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

