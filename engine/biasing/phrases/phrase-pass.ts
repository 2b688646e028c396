import { isSilence, type DecodeOptions } from '../../decoding/fallback';
import { type EncodedWindow, type PromptRun, type WhisperModel } from '../../whisper/model';
import { endedWithEot, repeatsTail, type Generation, type GenerateOptions } from '../../whisper/generate';
import { PARAM_LIMITS } from '../../../src/api/params';
import { DEFAULT_BIAS_STRENGTH } from '../../protocol';
import { formIndex, formsBy, HEARD_FLOOR, phrasesHeard, writtenIn, type Heard } from './model-rank';
import { createBiasProcessor } from './processor';
import { MAX_PROMPT_PHRASES, phrasePrompt, promptForPhrases } from './prompt';
import { rankPhrases } from './shortlist';
import { passWords, sameSoundPhrases, splicePhrase, unsureStretches, type PassWords, type Splice } from './splice';


/**
 * Log-probability a listed phrase may cost, at the default strength, and still be kept: how much less
 * likely the unbiased model may find a transcription for holding it. On the bias set (bench/bias-set/
 * README.md) phrases truly spoken and proposed cost at most 20, names proposed into unrelated speech 29
 * or more. Per phrase, not per token: once a long made-up name is begun its further tokens are cheap.
 */
export const PHRASE_CREDIT = 24;

/**
 * A phrase is only credited where the unbiased pass was unsure: the words that sound most like it
 * must have had a log-probability below this (splice.ts runLogprob; a probability of about 0.55). On
 * the bias set, misheard names were written at -0.67 to -2.0; the unrelated words that proposals turned
 * into listed names were written above -0.3 ("new" → "Nelvesk") or just under -0.5 ("prudently" →
 * "Prunddal").
 * The one exception: words that sound the same as the phrase split into more words (splice.ts
 * sameSoundPhrases). Among the words both models were sure of, on the bias set and ../shared/eval's
 * English recordings, listed phrases at least 0.8 alike were all truly spoken ("play right",
 * "K-R-Z-Y-S-Z-T-O-F"); the false ones were 0.7 alike or less.
 */
export const UNSURE = -0.6;

/**
 * How alike (shortlist.ts soundMatch) the unsure words must sound to a phrase for it to be credited
 * there: proposed names landed on look-alikes of at least 0.43 on the bias set ("auto" → "Xarelto"),
 * the one proposed into unrelated speech on 0.33 ("Ten of clubs" → "Tantar Klobs").
 */
const CREDIT_MIN_SIM = 0.4;

/**
 * A splice, which no decoding proposed, must sound more alike and earns less credit than a proposal:
 * the run it replaces must be this alike, and it earns this share of the credit. On the bias set true
 * splices cost 0.9–20.8 (most under 14), and those into misheard ordinary words ("away" → "Galway",
 * "sparse" → "Saoirse", both tiny) 17.6–22.8.
 */
const SPLICE_MIN_SIM = 0.55;
const SPLICE_CREDIT_SHARE = 2 / 3;

/**
 * A splice at least this alike the words it replaces, where the pass was unsure of them, earns the full
 * credit: on bench/bias-set every such splice was a term truly spoken (the false ones were at most 0.7
 * alike), and at 2/3 of the credit base lost Krzysztof over "RZYZT-OF" (0.88 alike, cost 17.1 against
 * 16). Over words the pass was sure of (a same-sound phrase) a splice keeps the 2/3: "Inafolder" over a
 * clearly spoken "in a folder" costs 17.8 (test/browser/biasing.test.ts).
 */
const SURE_SPLICE_SIM = 0.8;

/** The least share of the first pass's text tokens a proposal may have (see Judge.coversAsMuch). */
const MIN_TEXT_KEPT = 0.6;

/**
 * Splices scored per round, the most alike first: each costs a teacher-forced decoder run, and a
 * 10,000-phrase list has many names that sound somewhat like any unsure word. 3 (was 8) left every
 * transcription of bench/bias-set unchanged (both models, 250 and 10,000 phrases) and cut what
 * 10,000 phrases add over 250 by about half (bench/bias-set/README.md).
 */
const SPLICES_SCORED = 3;

/** Splices kept per window, at most (each found in one round that scores every candidate). */
const SPLICE_ROUNDS = 3;

/** How a bias_strength is spent (see decodeWithPhrases). */
export interface BiasPlan {
  /** One biased pass per entry, with that strength for the trie processor (boost = strength × TOKEN_BOOST per token). */
  proposals: number[];
  /** Log-probability each gained phrase may cost and still be kept, when the passes are compared. */
  credit: number;
}

/**
 * bias_strength 0 is off (the unbiased pass only). Above 0 the strength sets the credit, growing with its
 * square root: at 1 it is 36, and proposals into unrelated speech begin to pass (the spec's warning).
 */
export function biasPlan(strength: number): BiasPlan | null {
  if (!(strength > 0)) return null;
  return { proposals: [DEFAULT_BIAS_STRENGTH, 1], credit: PHRASE_CREDIT * Math.sqrt(strength / DEFAULT_BIAS_STRENGTH) };
}

/** What a comparison of the passes saw (for measurements). */
export interface PhraseComparison {
  gained: string[];
  /** Listed phrases the first pass held that the candidate lost (each debited a credit). */
  lost: string[];
  /** How much less likely the biased pass is, per phrase it gained, without the phrase prompt. */
  costPerPhrase: number;
  /** The credit per phrase it gained (less for a phrase only the model's ranking found). */
  credit: number;
  biasedText: string;
  /** Where the candidate came from: a biased pass, or a splice of one phrase into the best so far. */
  how: string;
}

/**
 * Phrase biasing as a second look at a window that was decoded without it (`first`):
 * 1. the phrases that sound most like the words the first pass was unsure of are picked (shortlist.ts),
 *    as many as fit a short prompt, after any that sound the same as words it split apart ("play
 *    right" for "Playwright", splice.ts sameSoundPhrases); a pass sure of every word with no such
 *    phrase gets no second look (most windows of speech that holds no listed phrase end here, at no cost);
 * 2. where the pass was unsure, the model itself is asked which listed phrase it hears at each token of
 *    an unsure word and of the word before it (model-rank.ts): the likeliest is written in there and
 *    decoded on until the decoding rejoins the pass. This finds names whose spelling is nothing like what
 *    the pass wrote ("cousin's here to" → "cousin Saoirse"), for a lower credit (HEARD_CREDIT_SHARE);
 * 3. splices: each is written in place of the unsure (or same-sounding) words that sound like it
 *    (splice.ts); a pass sure of every word stops here;
 * 4. proposals: the window is decoded again with them as Whisper's previous-text prompt, boosting
 *    tokens that extend a listed phrase (processor.ts: an abandoned partial match gives its boost
 *    back), once per proposal strength;
 * 5. every candidate that holds listed phrases the first pass did not is scored by the model without
 *    the phrase prompt; the likeliest wins, each candidate credited `credit` per phrase it gained and
 *    debited as much per listed phrase of the first pass it lost.
 * The prompt and the boost, which on their own insert names and change style, only propose.
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
  const heard = passWords(vocab, first.tokens);
  const unsure = unsureStretches(heard, UNSURE);
  const sameSound = sameSoundPhrases(vocab, heard, phrases);
  if (!unsure && sameSound.length === 0) return first;
  const ranked = unsure ? rankPhrases(unsure, phrases, CREDIT_MIN_SIM, MAX_PROMPT_PHRASES) : [];
  const candidates = phrasePrompt(vocab, [...new Set([...sameSound, ...ranked])]).phrases;
  if (candidates.length === 0 && !unsure) return first;
  const frame = { language: opts.language, ...(opts.promptIds ? { promptIds: opts.promptIds } : {}) };
  const judge = new Judge(model, encoded, frame, first, heard, candidates, heldPhrases(textOf(model, first), phrases), new Set(sameSound), plan.credit, onCompare);
  if (unsure) await weighHeard(judge, encoded, opts, first, unsurePlaces(heard), phrases, plan.credit * HEARD_CREDIT_SHARE);
  if (candidates.length === 0) return judge.best === first || !opts.wantAttention ? judge.best : withAttention(model, encoded, opts, judge.best);
  // the likeliest last in the prompt: nearest the transcript it steers
  const promptIds = [...(opts.promptIds ?? []), ...promptForPhrases(vocab, [...candidates].reverse())];
  // decoded without attention: only a winning proposal is aligned, once, below
  const proposalOpts = { ...opts, wantAttention: false, promptIds, maxTokens: proposalLimit(first) };
  // splices first: a splice keeps every other word of the unbiased pass, so it sets the bar for a proposal
  await spliceRounds(judge, candidates, opts.checkpoint);
  // sure of every word: only a spelling to mend, which the splices did
  if (!unsure) return judge.best === first || !opts.wantAttention ? judge.best : withAttention(model, encoded, opts, judge.best);
  const spliced = judge.best;
  const tried = new Set<string>();
  const loops = recites(vocab, candidates);
  const loopRepeats = proposalLoopRepeats(vocab, first);
  const until = settledProposal(vocab, first, heard, judge.lookAlikesEnd, sameSound.length > 0);
  // the proposals share their prompt, run once
  const start = await model.promptRun(encoded, proposalOpts);
  try {
    for (const strength of plan.proposals) {
      const proposal = await propose(model, encoded, proposalOpts, createBiasProcessor(vocab, candidates, strength), { loops, loopRepeats, ...(until ? { until } : {}) }, start);
      const text = textOf(model, proposal);
      // a pass that fell into a loop proposes the loop, not the phrase; one stopped by `until` gained
      // nothing, and weigh drops it unscored
      if (proposal.looped || tried.has(text) || !judge.coversAsMuch(proposal)) continue;
      tried.add(text);
      await judge.weigh(proposal, 'proposal');
    }
  } finally {
    start.release();
  }
  // a winning proposal may still lack a phrase that a splice adds
  if (judge.best !== spliced) await spliceRounds(judge, candidates, opts.checkpoint);
  return judge.best === first || !opts.wantAttention ? judge.best : withAttention(model, encoded, proposalOpts, judge.best);
}

/**
 * A winning candidate, which was decoded or spliced without attention, with the rows its word timings
 * need, from one teacher-forced run framed as `framing` (the proposals' prompt where there were proposals).
 */
async function withAttention(model: WhisperModel, encoded: EncodedWindow, framing: DecodeOptions, best: Generation): Promise<Generation> {
  framing.checkpoint?.();
  const f = model.framing(encoded, framing);
  const bestIds = ids(best);
  return { ...best, attention: await model.attentionRows(encoded, f.prompt, bestIds, endedWithEot(bestIds, model.vocab, f)) };
}

const ids = (gen: Pick<Generation, 'tokens'>) => gen.tokens.map((t) => t.id);

/** What a candidate gained and lost against the first pass (Judge.balance). */
interface PhraseBalance {
  gained: string[];
  lost: string[];
}

/** Keeps the likeliest candidate transcription of a window, each credited per listed phrase it gained. */
class Judge {
  best: Generation;
  /** Credit the best so far was denied for its splices (see SPLICE_CREDIT_SHARE). */
  bestWithheld = 0;
  private bestScore: number | null = null;
  private firstLogprobs: number[] | null = null;
  /** The best's per-target log-probabilities (a splice is scored from where it leaves them); null while the best is the first pass. */
  private bestLogprobs: number[] | null = null;
  private readonly firstText: string;
  /**
   * The phrases that may earn credit, and how much: those whose look-alike words in the first pass it was
   * unsure of, or split apart, the full credit; those only the model heard where it was unsure (admit) less.
   */
  private readonly creditable = new Map<string, number>();
  /** Per phrase creditable by its spelling: the first pass's tokens of its look-alike words and the word before. */
  private readonly lookAlikes = new Map<string, { from: number; to: number }>();
  /** Where the last of the look-alikes ends (a token index of the first pass; 0 if none). */
  readonly lookAlikesEnd: number;

  constructor(
    readonly model: WhisperModel,
    private readonly encoded: EncodedWindow,
    private readonly frame: { language: string; promptIds?: readonly number[] },
    private readonly first: Generation,
    firstWords: PassWords,
    phrases: readonly string[],
    /** The listed phrases the first pass holds (a candidate is debited for each it loses). */
    private readonly held: readonly string[],
    /** Phrases that sound the same as words the first pass split apart (splice.ts sameSoundPhrases). */
    readonly sameSound: ReadonlySet<string>,
    private readonly credit: number,
    private readonly onCompare?: (comparison: PhraseComparison) => void,
  ) {
    this.best = first;
    this.firstText = textOf(model, first);
    for (const p of phrases) {
      if (sameSound.has(p)) {
        this.creditable.set(p, credit);
        continue;
      }
      const lookAlike = splicePhrase(model.vocab, firstWords, p, CREDIT_MIN_SIM);
      if (lookAlike === null || lookAlike.replacedLogprob >= UNSURE) continue;
      this.creditable.set(p, credit);
      const { start, end } = lookAlike.match;
      this.lookAlikes.set(p, { from: firstWords.words[Math.max(0, start - 1)]!.start, to: firstWords.words[end - 1]!.end });
    }
    this.lookAlikesEnd = Math.max(0, ...[...this.lookAlikes.values()].map((l) => l.to));
  }

  /** Lets `phrase` earn `credit` where it would earn none. */
  admit(phrase: string, credit: number): void {
    if (!this.creditable.has(phrase)) this.creditable.set(phrase, credit);
  }

  /**
   * What a candidate that wrote in `phrase` at token `place` of the first pass, where the model heard it,
   * is denied of its credit, its predecessors' withheld credit included: all above `credit`, unless it was
   * written over the words it is spelt like. The model may hear a listed name elsewhere (tiny: Galway over
   * "glowing", where the look-alike was "always", at a cost of 13.4).
   */
  heardWithheld(phrase: string, place: number, credit: number): number {
    const at = this.lookAlikes.get(phrase);
    const overLookAlike = at !== undefined && place >= at.from && place < at.to;
    return this.bestWithheld + (overLookAlike ? 0 : Math.max(0, (this.creditable.get(phrase) ?? credit) - credit));
  }

  /**
   * The creditable phrases `candidate` holds more often than the first pass, and the listed phrases of
   * the first pass it holds less often (see phrasesLost).
   */
  balance(candidate: Generation): PhraseBalance {
    const text = textOf(this.model, candidate);
    return { gained: phrasesGained(this.firstText, text, [...this.creditable.keys()]), lost: this.held.length === 0 ? [] : phrasesLost(this.firstText, text, this.held) };
  }

  /**
   * A log-probability is a sum over tokens, so a transcription that stops early looks likelier than
   * one of all the speech: a proposal that wrote one name and ended ("Dandlisk," for 30 s of a meeting)
   * outscored the whole transcription by 22.8. A proposal must keep most of the first pass's text.
   * Splices are not held to it: they keep every word but those they replace, which may be many tokens
   * ("K-R-Z-Y-S-Z-T-O-F" for Krzysztof).
   */
  coversAsMuch(candidate: Generation): boolean {
    const vocab = this.model.vocab;
    return textIds(vocab, candidate).length >= MIN_TEXT_KEPT * textIds(vocab, this.first).length;
  }

  /** A candidate's log-probability with the credit for the phrases it gained and lost: once per phrase, however often. */
  credited(score: number, { gained, lost }: PhraseBalance): number {
    return score + this.creditFor(gained) - this.credit * lost.length;
  }

  private creditFor(gained: readonly string[]): number {
    return sum(gained.map((p) => this.creditable.get(p)!));
  }

  /** What `splice` into the best so far is denied of its credit, its predecessors' splices included. */
  spliceWithheld(splice: Splice): number {
    const full = splice.match.sim >= SURE_SPLICE_SIM && splice.replacedLogprob < UNSURE;
    return this.bestWithheld + (full ? 0 : this.credit * (1 - SPLICE_CREDIT_SHARE));
  }

  /**
   * Scores `candidate` without the phrase prompt (unless its per-target `logprobs` are known) and keeps
   * it if it wins, `withheld` taken off its credit; true if it did.
   */
  async weigh(candidate: Generation, how: string, logprobs?: number[], withheld = 0): Promise<boolean> {
    const balance = this.balance(candidate);
    if (balance.gained.length === 0) return false;
    const firstScore = sum(await this.firstLogprobsKnown());
    this.bestScore ??= firstScore;
    logprobs ??= await this.model.score(this.encoded, this.frame, ids(candidate));
    const score = sum(logprobs);
    this.onCompare?.({ ...balance, costPerPhrase: (firstScore - score) / balance.gained.length, credit: this.creditFor(balance.gained) / balance.gained.length, biasedText: textOf(this.model, candidate), how });
    // a pass that repeats a name must not earn credit by it
    const credited = this.credited(score, balance) - withheld;
    if (credited <= this.bestScore) return false;
    [this.best, this.bestScore, this.bestWithheld, this.bestLogprobs] = [candidate, credited, withheld, logprobs];
    return true;
  }

  /** The credited score a candidate must beat to be kept. */
  async bar(): Promise<number> {
    return this.bestScore ?? sum(await this.firstLogprobsKnown());
  }

  /** The first pass's per-target log-probabilities without the phrase prompt, scored on first use. */
  private async firstLogprobsKnown(): Promise<number[]> {
    this.firstLogprobs ??= await this.model.score(this.encoded, this.frame, ids(this.first));
    return this.firstLogprobs;
  }

  /**
   * The best so far with its tokens replaced by `tokenIds`, scored by the model without the phrase
   * prompt, from the first token they change. The tokens before keep the best's log-probabilities: a run
   * that goes on otherwise gives them other values (activations are quantized per run: up to 0.4 nats a
   * token on ami_dev00), noise that the comparison need not carry.
   */
  async scored(tokenIds: readonly number[]): Promise<{ gen: Generation; logprobs: number[] }> {
    const known = this.bestLogprobs ?? (await this.firstLogprobsKnown());
    const bestIds = ids(this.best);
    let same = 0;
    while (same < tokenIds.length && same < bestIds.length && tokenIds[same] === bestIds[same]) same++;
    const logprobs = [...known.slice(0, same), ...(await this.model.score(this.encoded, this.frame, tokenIds, same))];
    const tokens = tokenIds.map((id, i) => ({ id, logprob: logprobs[i]! }));
    return { gen: { ...this.best, tokens, avgLogprob: sum(logprobs) / logprobs.length, looped: false, attention: null }, logprobs };
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/**
 * The share of the credit a phrase earns where the model's own ranking wrote it in (model-rank.ts), not a
 * look-alike spelling: the model also hears names in unrelated words. On bench/bias-set (base) true terms
 * written in so cost -0.5 to 13.7, and names into unrelated words 14.0 and up (bench/bias-set/README.md).
 */
const HEARD_CREDIT_SHARE = 11 / 24;

/**
 * What hearing a phrase among `count` listed ones needs beyond what it needs among the inline limit's
 * 250, which the heard credit and floor were set on (bench/bias-set): a name among N is a priori N/250
 * times less likely to be the one spoken, so the model must find it likelier by ln(N/250) nats, and its
 * credit is less by as much. With 10,000 made-up names listed, tiny wrote 9 of them into 591 s of
 * unrelated speech without it ("My name is Drugal" for "My name is Andrew, we're here"), 2 with it.
 */
export function listSurcharge(count: number): number {
  return Math.log(Math.max(1, count / PARAM_LIMITS.phrases));
}

/** Phrases the model heard that are written in per place, the likeliest first. */
const HEARD_PER_PLACE = 1;

/**
 * Phrases written in per window, the likeliest heard first: each costs a decoding from its place and a
 * scoring run, and among 10,000 made-up names one is heard at nearly every unsure place of a long window
 * (30 s windows took 61% longer than with 250 phrases when all were written in).
 */
const HEARD_WRITTEN = 3;

/**
 * Unsure words per window the model is asked about, the least sure first: each adds a few dozen rows over
 * the vocabulary per token (model-rank.ts), and 30 s of meeting speech has dozens of unsure words.
 */
const HEARD_WORDS = 4;

/**
 * Token indices where the model is asked which listed phrase it hears: each token of an unsure word and
 * of the word before it, for the HEARD_WORDS least sure words. Not only word starts: base wrote
 * "cousin's here to" for "cousin Saoirse studies".
 */
export function unsurePlaces(pass: PassWords): number[] {
  const { sureness } = pass;
  const unsure = pass.words
    .map((_, i) => i)
    .filter((i) => sureness[i]! < UNSURE)
    .sort((a, b) => sureness[a]! - sureness[b]!)
    .slice(0, HEARD_WORDS);
  const places = new Set<number>();
  for (const i of unsure) for (let t = i > 0 ? pass.words[i - 1]!.start : pass.words[i]!.start; t < pass.words[i]!.end; t++) places.add(t);
  return [...places].sort((a, b) => a - b);
}

/**
 * Where token `place` of the first pass is in a candidate that changed one `stretch` of it (rewritten): the
 * same index before the stretch, shifted after it; null inside it.
 */
export function placeIn({ same, firstEnd, bestEnd }: ReturnType<typeof rewritten>, place: number): number | null {
  if (place <= same) return place;
  return place >= firstEnd ? place + bestEnd - firstEnd : null;
}

/**
 * The one stretch in which `best` differs from `first`: both hold the same `same` tokens before it, and the
 * same tokens from `firstEnd` of `first` and `bestEnd` of `best` on.
 */
export function rewritten(first: Pick<Generation, 'tokens'>, best: Pick<Generation, 'tokens'>): { same: number; firstEnd: number; bestEnd: number } {
  const [a, b] = [ids(first), ids(best)];
  let same = 0;
  while (same < a.length && same < b.length && a[same] === b[same]) same++;
  let tail = 0;
  while (tail < a.length - same && tail < b.length - same && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { same, firstEnd: a.length - tail, bestEnd: b.length - tail };
}

/**
 * Where `item`, a phrase heard at a place of the first pass, is written into `best`: at that place, shifted;
 * or, where an earlier round's phrase rewrote the words around it, at the place in the rewritten stretch
 * (or just after it) where the model now hears it likeliest, above `floor`. Base heard Zigbee in "Prised
 * off-prez entered the music with thermostat", where Krzysztof, kept first, made it "Krzysztof presented
 * a music-beath thermostat". Null where it is heard nowhere there.
 */
async function placedIn(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  first: Generation,
  best: Generation,
  item: { place: number; heard: Heard },
  floor: number,
): Promise<{ at: number; heard: Heard } | null> {
  const stretch = rewritten(first, best);
  const at = placeIn(stretch, item.place);
  if (at !== null) return { at, heard: item.heard };
  const { same, bestEnd } = stretch;
  // a phrase may begin at any token of the stretch, or just after it
  const places = Array.from({ length: bestEnd - same + 1 }, (_, i) => same + i).filter((p) => p > 0 && p < best.tokens.length);
  // one phrase's forms (not kept among the recent lists a long list's index must stay in), so no bound on
  // its first token but the floor: " Z" of Zigbee after "Krzysztof presented a" is below model-rank.ts FIRST_TOKEN_FLOOR
  const heardAt = await phrasesHeard(model, encoded, opts, best.tokens, places, formsBy(model.vocab, [item.heard.phrase]), { count: 1, floor, firstTokenFloor: floor });
  let found: { at: number; heard: Heard } | null = null;
  for (const [p, [heard]] of heardAt) if (heard && (!found || heard.logprob > found.heard.logprob)) found = { at: p, heard };
  return found;
}

/**
 * Rounds of the phrases the model itself hears at `places` of the first pass (model-rank.ts), each
 * written into the best transcription so far, the likeliest weighed, until one keeps nothing or
 * SPLICE_ROUNDS are kept. The phrase written in earns `credit` (less the list's surcharge), less than the
 * full credit, unless it was written over the words it is spelt like. A written-in phrase that cannot
 * beat the best is not tried again.
 */
async function weighHeard(judge: Judge, encoded: EncodedWindow, opts: DecodeOptions, first: Generation, places: readonly number[], phrases: readonly string[], credit: number): Promise<void> {
  const model = judge.model;
  const surcharge = listSurcharge(phrases.length);
  const floor = HEARD_FLOOR + surcharge;
  const heardAt = await phrasesHeard(model, encoded, opts, first.tokens, places, formIndex(model.vocab, phrases), { count: HEARD_PER_PLACE, floor });
  const earned = credit - surcharge;
  let pending = [...heardAt]
    .flatMap(([place, heard]) => heard.map((h) => ({ place, heard: h })))
    .sort((a, b) => b.heard.logprob - a.heard.logprob)
    .slice(0, HEARD_WRITTEN);
  for (const { heard } of pending) judge.admit(heard.phrase, earned);
  for (let round = 0; round < SPLICE_ROUNDS && pending.length > 0; round++) {
    const best = judge.best;
    const bar = await judge.bar();
    const bestText = textOf(model, best);
    const promising: typeof pending = [];
    let top: { gen: Generation; logprobs: number[]; credited: number; withheld: number; heard: Heard; how: string } | null = null;
    for (const item of pending) {
      opts.checkpoint?.();
      // a phrase the transcription holds already: written again, it would be credited for a repeat
      if (occurrences(bestText, item.heard.phrase) > 0) continue;
      const placed = await placedIn(model, encoded, opts, first, best, item, floor);
      if (!placed) continue;
      const { at } = placed;
      const tokens = await writtenIn(model, encoded, opts, best.tokens, at, placed.heard);
      if (!tokens) continue;
      const { gen, logprobs } = await judge.scored(ids({ tokens }));
      const withheld = judge.heardWithheld(item.heard.phrase, item.place, earned);
      const credited = judge.credited(sum(logprobs), judge.balance(gen)) - withheld;
      if (credited <= bar || !judge.coversAsMuch(gen)) continue;
      promising.push(item);
      if (!top || credited > top.credited) top = { gen, logprobs, credited, withheld, heard: item.heard, how: `heard at token ${at} (${placed.heard.logprob.toFixed(1)})` };
    }
    if (!top || !(await judge.weigh(top.gen, top.how, top.logprobs, top.withheld))) return;
    pending = promising.filter((item) => item.heard !== top.heard);
  }
}

/** Splice rounds until one keeps nothing, or SPLICE_ROUNDS are kept. */
async function spliceRounds(judge: Judge, phrases: readonly string[], checkpoint?: () => void): Promise<void> {
  for (let round = 0; round < SPLICE_ROUNDS; round++) {
    checkpoint?.();
    if (!(await spliceRound(judge, phrases))) return;
  }
}

/**
 * One round of splices into the best transcription so far: each candidate phrase it lacks is written
 * in place of the unsure words that sound most like it, all are scored, and the likeliest is weighed
 * (so two phrases that sound like the same words compete). True if one was kept.
 */
async function spliceRound(judge: Judge, phrases: readonly string[]): Promise<boolean> {
  const vocab = judge.model.vocab;
  const pass = passWords(vocab, judge.best.tokens);
  const have = new Set(judge.balance(judge.best).gained);
  let top: { gen: Generation; logprobs: number[]; credited: number; withheld: number; how: string } | null = null;
  const splices = phrases
    .filter((phrase) => !have.has(phrase))
    .flatMap((phrase) => {
      const splice = splicePhrase(vocab, pass, phrase, SPLICE_MIN_SIM);
      return splice && (splice.replacedLogprob < UNSURE || judge.sameSound.has(phrase)) ? [splice] : [];
    })
    .sort((a, b) => b.match.sim - a.match.sim)
    .slice(0, SPLICES_SCORED);
  for (const splice of splices) {
    const { gen, logprobs } = await judge.scored(splice.ids);
    const withheld = judge.spliceWithheld(splice);
    const credited = judge.credited(sum(logprobs), judge.balance(gen)) - withheld;
    if (!top || credited > top.credited) {
      top = { gen, logprobs, credited, withheld, how: `splice for "${splice.replaced}" (sim ${splice.match.sim.toFixed(2)}, logprob ${splice.replacedLogprob.toFixed(2)})` };
    }
  }
  return top !== null && (await judge.weigh(top.gen, top.how, top.logprobs, top.withheld));
}

/**
 * A proposal may run somewhat longer than the unbiased pass (a name can take more tokens than what it
 * replaces), not on and on: a prompted pass that lists names past the speech is stopped early.
 */
function proposalLimit(first: Generation): number {
  return Math.ceil(first.tokens.length * 1.5) + 8;
}

/**
 * A proposal that repeats an n-gram this often is dropped as looped, where a transcription is given 4:
 * prompted with a 10,000-phrase list's look-alikes, one wrote "Gontiond, Pintaer," over and over to its
 * token limit (fw_hotwords, tiny), and a looped proposal is never weighed.
 */
const PROPOSAL_LOOP_REPEATS = 3;

/**
 * Repeats that stop a proposal as looped: one more than the unbiased pass said anything in a row, and
 * at most PROPOSAL_LOOP_REPEATS. A proposal is that pass again with names mended, so a sentence it says
 * twice where the pass did not is a loop: on 30 s of phone speech, prompted with a 10,000-phrase list's
 * look-alikes, tiny wrote "I've got a lot of details." twice, then went on in that vein to 74 tokens.
 * The meeting's pass wrote "I don't think so." twice, which a proposal may too.
 */
export function proposalLoopRepeats(vocab: WhisperModel['vocab'], first: Generation): number {
  const text = textIds(vocab, first);
  for (let end = 4; end <= text.length; end++) if (repeatsTail(text.slice(0, end), 2)) return PROPOSAL_LOOP_REPEATS;
  return 2;
}

/**
 * A stop for proposals that have come back to the first pass for good: true once a proposal's text has
 * repeated the first pass's through its last unsure word and the last look-alike of a creditable phrase
 * (`lookAlikesEnd`), and one token on, so that word has ended. By then it has gained no phrase where one
 * can be credited (the judge's look-alikes, and the places the model was asked what it heard, are all
 * before that), and from there on it could write one only over words the first pass was sure of; it is
 * dropped unweighed, as a proposal that changed nothing. This saves decoding the rest of the window: 3–4%
 * of biasing time on bench/bias-set with both models, every transcription unchanged. Undefined where a
 * phrase sounds the same as words the pass split apart (`sameSound`): those may be anywhere, sure or not.
 */
export function settledProposal(
  vocab: WhisperModel['vocab'],
  first: Pick<Generation, 'tokens'>,
  pass: PassWords,
  lookAlikesEnd: number,
  sameSound: boolean,
): ((textIds: readonly number[]) => boolean) | undefined {
  if (sameSound) return undefined;
  const unsureEnd = pass.words.reduce((end, w, i) => (pass.sureness[i]! < UNSURE ? w.end : end), 0);
  const until = Math.max(unsureEnd, lookAlikesEnd);
  const firstText = textIds(vocab, first);
  const settled = firstText.slice(0, first.tokens.slice(0, until).filter((t) => vocab.isText(t.id)).length + 1);
  if (settled.length >= firstText.length) return undefined;
  return (ids) => ids.length === settled.length && settled.every((id, i) => ids[i] === id);
}

/** Text tokens recites() reads back from a proposal's end: a recital is a run of short names. */
const RECITAL_TOKENS = 32;

/**
 * A proposal whose text ends in a run of its listed phrases, with nothing but punctuation between them,
 * that holds one phrase twice is reciting its prompt ("Dandlisk, Zintan, Drarstior, Zintan"): it is
 * stopped there as looped. Left to PROPOSAL_LOOP_REPEATS, such proposals ran 32 to 74 tokens on 30 s of
 * meeting speech (tiny), to be dropped unweighed (bench/bias-set/README.md, "Long windows, and proposals
 * that recite their prompt"). A name said twice in speech has other words between ("your ComfyUI
 * folder, and again, in the ComfyUI").
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

/**
 * One biased pass at temperature 0 only: the temperature fallback's sampled passes made proposals
 * several times dearer (base: 9x the unbiased decoding time) for the rare name they found.
 */
function propose(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  bias: ReturnType<typeof createBiasProcessor>,
  stops: Pick<GenerateOptions, 'loops' | 'loopRepeats' | 'until'>,
  start: PromptRun,
): Promise<Generation> {
  const processors = [...(opts.processors ?? []), (logits: Float32Array, generated: readonly number[]) => bias.adjustLogits(logits, generated)];
  return model.generate(encoded, { ...opts, temperature: 0, processors, ...stops }, start);
}

/** A pass's text tokens, without its timestamps. */
function textIds(vocab: WhisperModel['vocab'], gen: Pick<Generation, 'tokens'>): number[] {
  return gen.tokens.filter((t) => vocab.isText(t.id)).map((t) => t.id);
}

function textOf(model: WhisperModel, gen: Generation): string {
  return model.vocab.decode(textIds(model.vocab, gen));
}

const normalized = (s: string) => ` ${s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;

/** The `phrases` that `text` holds more often than `before`. */
export function phrasesGained(before: string, text: string, phrases: readonly string[]): string[] {
  return phrases.filter((p) => occurrences(text, p) > occurrences(before, p));
}

/**
 * The `phrases` that `text` holds less often than `before`. A candidate is debited for each: base wrote
 * "Krzysztof presented the news IGBI thermostat", and a proposal that gained Zigbee but turned
 * Krzysztof into "Khrushkhoff" won on Zigbee's credit alone.
 */
export function phrasesLost(before: string, text: string, phrases: readonly string[]): string[] {
  return phrases.filter((p) => occurrences(text, p) < occurrences(before, p));
}

/** The phrases that occur in `text` (see occurrences), the text normalized once for a long list. */
function heldPhrases(text: string, phrases: readonly string[]): string[] {
  const t = normalized(text);
  return phrases.filter((phrase) => {
    const p = normalized(phrase);
    return p.trim() !== '' && t.includes(p);
  });
}

/** Whole-word occurrences of `phrase` in `text`, ignoring case and punctuation. */
export function occurrences(text: string, phrase: string): number {
  const p = normalized(phrase);
  return p.trim() ? normalized(text).split(p).length - 1 : 0;
}
