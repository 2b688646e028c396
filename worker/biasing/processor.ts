import { buildPhraseTrie, type BiasVocabulary, type TokenTrie } from './trie';

/**
 * Logit boost per phrase token at bias_strength 1. bias_strength scales it linearly, so the
 * default 0.45 adds about 1.8 to the logit of a token that extends a phrase (see the report in
 * bench/bias-set/README.md for how it was chosen).
 */
export const TOKEN_BOOST = 4;

/**
 * Per-hypothesis biasing state is one trie node: the root (0) when no phrase is partly matched.
 * Everything else (matched depth, the part a completed phrase already claimed) follows from it.
 */
export type BiasState = number;
export const ROOT_STATE: BiasState = 0;

/** Phrase biasing over token ids, for greedy decoding (adjustLogits) and for a beam (the rest). */
export interface BiasProcessor {
  /** Boost per extending token, in logit units (strength × TOKEN_BOOST). */
  readonly boost: number;
  /** Whether it changes anything (no phrases, or strength 0, make it a no-op). */
  readonly active: boolean;
  /** generate()'s hook: adjusts one rule-masked logits row in place for the hypothesis `generated`. */
  adjustLogits(logits: Float32Array, generated: readonly number[]): void;
  /** Adds this state's boosts to `logits` in place. */
  boostRow(state: BiasState, logits: Float32Array): void;
  /** Follows `token` from `state`: the next state and the change in the hypothesis' bias score. */
  advance(state: BiasState, token: number): { state: BiasState; delta: number };
  /** Score change when a hypothesis ends in `state`: a partial match left open gives its boost back. */
  finish(state: BiasState): number;
  /** The state after a whole token sequence (from the root). */
  stateOf(tokens: readonly number[]): BiasState;
}

/**
 * Contextual biasing in the decoder. Tokens that extend a phrase gain `boost`; a hypothesis that
 * abandons a partial match loses what the match had gained (its score is as if the boosted tokens
 * had never been boosted), and a completed phrase keeps its gain.
 *
 * In one logits row that accounting becomes relative: abandoning costs `boost × open depth`, so the
 * extending tokens gain that much plus `boost` over every other token; adding a constant to the whole
 * row would change neither argmax, sampling nor the log-probabilities generate() reports.
 */
export function createBiasProcessor(vocab: BiasVocabulary, phrases: readonly string[], strength: number): BiasProcessor {
  const boost = Math.max(0, strength) * TOKEN_BOOST;
  const trie = buildPhraseTrie(vocab, boost > 0 ? phrases : []);
  return new TrieBiasProcessor(trie, boost);
}

class TrieBiasProcessor implements BiasProcessor {
  readonly active: boolean;
  private readonly rootTokens: Int32Array;
  private readonly childCache = new Map<number, Int32Array>();
  /** The hypothesis adjustLogits last saw, so a greedy pass advances one token per step. */
  private seen: number[] = [];
  private seenState: BiasState = ROOT_STATE;

  constructor(
    private readonly trie: TokenTrie,
    readonly boost: number,
  ) {
    this.rootTokens = trie.childTokens(0);
    this.active = boost > 0 && this.rootTokens.length > 0;
  }

  adjustLogits(logits: Float32Array, generated: readonly number[]): void {
    if (!this.active) return;
    this.boostRow(this.track(generated), logits);
  }

  boostRow(state: BiasState, logits: Float32Array): void {
    if (!this.active) return;
    const b = this.boost;
    const n = logits.length;
    const root = this.rootTokens;
    for (let i = 0; i < root.length; i++) {
      const t = root[i]!;
      if (t < n) logits[t] = logits[t]! + b;
    }
    if (state === ROOT_STATE) return;
    const open = this.openDepth(state);
    const extend = this.childrenOf(state);
    for (let i = 0; i < extend.length; i++) {
      const t = extend[i]!;
      if (t >= n) continue;
      // A token that also starts a phrase afresh already has +b from the loop above.
      const fresh = this.trie.child(0, t) >= 0 ? b : 0;
      logits[t] = logits[t]! + b * open + b - fresh;
    }
  }

  advance(state: BiasState, token: number): { state: BiasState; delta: number } {
    if (!this.active) return { state: ROOT_STATE, delta: 0 };
    const b = this.boost;
    const next = this.trie.child(state, token);
    if (next >= 0) return { state: this.settle(next), delta: b };
    const giveBack = -b * this.openDepth(state);
    const fresh = this.trie.child(0, token);
    if (fresh >= 0) return { state: this.settle(fresh), delta: giveBack + b };
    return { state: ROOT_STATE, delta: giveBack };
  }

  finish(state: BiasState): number {
    return this.active ? -this.boost * this.openDepth(state) : 0;
  }

  stateOf(tokens: readonly number[]): BiasState {
    let s = ROOT_STATE;
    for (const t of tokens) s = this.advance(s, t).state;
    return s;
  }

  /** A completed phrase that nothing longer extends returns to the root (its gain is kept). */
  private settle(node: number): BiasState {
    return this.trie.isEnd(node) && !this.trie.hasChildren(node) ? ROOT_STATE : node;
  }

  private openDepth(state: BiasState): number {
    return this.trie.depth(state) - this.trie.bankedDepth(state);
  }

  private childrenOf(state: BiasState): Int32Array {
    let c = this.childCache.get(state);
    if (!c) {
      c = this.trie.childTokens(state);
      this.childCache.set(state, c);
    }
    return c;
  }

  private track(generated: readonly number[]): BiasState {
    const seen = this.seen;
    const n = generated.length;
    const extendsSeen = n === seen.length + 1 && sharesPrefix(seen, generated, seen.length);
    if (n === seen.length && sharesPrefix(seen, generated, n)) return this.seenState;
    if (extendsSeen) {
      this.seenState = this.advance(this.seenState, generated[n - 1]!).state;
    } else {
      // A new pass (temperature fallback, next window) or a different hypothesis: replay it.
      this.seenState = this.stateOf(generated);
    }
    this.seen = generated.slice();
    return this.seenState;
  }
}

function sharesPrefix(a: readonly number[], b: readonly number[], length: number): boolean {
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}
