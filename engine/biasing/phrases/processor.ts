import { recentLists } from './recent-lists';
import { buildPhraseTrie, type BiasVocabulary, type TokenTrie } from './trie';

/**
 * Logit boost per phrase token at bias_strength 1. bias_strength scales it linearly, so the
 * default 0.45 adds about 2 to the logit of a token that extends a phrase (see the report in
 * bench/bias-set/README.md for how it was chosen).
 */
export const TOKEN_BOOST = 4.5;

/** Biasing state of a pass: one trie node, the root (0) when no phrase is partly matched. */
type BiasState = number;
const ROOT_STATE: BiasState = 0;

/** Phrase biasing over token ids, for a greedy pass (generate()'s adjustLogits hook). */
export interface BiasProcessor {
  /** Whether it changes anything (no phrases, or strength 0, make it a no-op). */
  readonly active: boolean;
  /** generate()'s hook: adjusts one rule-masked logits row in place for the pass so far, `generated`. */
  adjustLogits(logits: Float32Array, generated: readonly number[]): void;
}

/**
 * Contextual biasing in the decoder. Tokens that extend a phrase gain `boost`; a pass that abandons a
 * partial match loses what the match had gained (as if the boosted tokens had never been boosted), and
 * a completed phrase keeps its gain.
 *
 * In one logits row that accounting becomes relative: abandoning costs `boost × open depth`, so the
 * extending tokens gain that much plus `boost` over every other token; adding a constant to the whole
 * row would change neither argmax, sampling nor the log-probabilities generate() reports.
 */
export function createBiasProcessor(vocab: BiasVocabulary, phrases: readonly string[], strength: number): BiasProcessor {
  const boost = Math.max(0, strength) * TOKEN_BOOST;
  return new TrieBiasProcessor(vocab, cachedTrie(vocab, boost > 0 ? phrases : []), boost);
}

/** The recent lists' tries, per vocabulary: a custom model's requests reuse its trie (bias strength is applied per processor). */
const trieCaches = new WeakMap<BiasVocabulary, ReturnType<typeof recentLists<TokenTrie>>>();

function cachedTrie(vocab: BiasVocabulary, phrases: readonly string[]): TokenTrie {
  let tries = trieCaches.get(vocab);
  if (!tries) trieCaches.set(vocab, (tries = recentLists<TokenTrie>()));
  return tries(phrases, () => buildPhraseTrie(vocab, phrases));
}

interface RootSplit {
  spaced: Int32Array;
  gluedTokens: Int32Array;
  glued: ReadonlySet<number>;
}

/** Phrase-start tokens with and without a leading space; kept per trie (decoding thousands of ids is not free). */
const rootSplits = new WeakMap<TokenTrie, RootSplit>();

function rootSplit(vocab: BiasVocabulary, trie: TokenTrie): RootSplit {
  let split = rootSplits.get(trie);
  if (!split) {
    const starts = [...trie.childTokens(0)];
    const glued = new Set(starts.filter((t) => !vocab.decode([t]).startsWith(' ')));
    split = { spaced: Int32Array.from(starts.filter((t) => !glued.has(t))), gluedTokens: Int32Array.from(glued), glued };
    rootSplits.set(trie, split);
  }
  return split;
}

class TrieBiasProcessor implements BiasProcessor {
  readonly active: boolean;
  /** First tokens of the spellings with a leading space: a phrase may start at any word. */
  private readonly rootTokens: Int32Array;
  /** First tokens of the spellings without one: only where no word is running ("(ComfyUI", "-Ozempic"). */
  private readonly gluedRootTokens: Int32Array;
  private readonly glued: ReadonlySet<number>;
  /** Per token id seen: whether its text ends in a letter or digit (a word runs on after it). */
  private readonly endsInWord = new Map<number, boolean>();
  private readonly childCache = new Map<number, Int32Array>();
  /** The pass adjustLogits last saw, so a greedy pass advances one token per step. */
  private seen: number[] = [];
  private seenState: BiasState = ROOT_STATE;

  constructor(
    private readonly vocab: BiasVocabulary,
    private readonly trie: TokenTrie,
    /** Boost per extending token, in logit units (strength × TOKEN_BOOST). */
    private readonly boost: number,
  ) {
    const roots = rootSplit(vocab, trie);
    this.glued = roots.glued;
    this.rootTokens = roots.spaced;
    this.gluedRootTokens = roots.gluedTokens;
    this.active = boost > 0 && roots.spaced.length + roots.gluedTokens.length > 0;
  }

  adjustLogits(logits: Float32Array, generated: readonly number[]): void {
    if (!this.active) return;
    const state = this.track(generated);
    const b = this.boost;
    const n = logits.length;
    const extend = state === ROOT_STATE ? null : this.childrenOf(state);
    const open = state === ROOT_STATE ? 0 : this.openDepth(state);
    const bump = (tokens: Int32Array, amount: number, skipExtending: boolean) => {
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i]!;
        if (t >= n) continue;
        // an extending token gets the larger continuation boost instead
        if (skipExtending && extend && this.trie.child(state, t) >= 0) continue;
        logits[t] = logits[t]! + amount;
      }
    };
    bump(this.rootTokens, b, true);
    if (this.mayGlue(generated[generated.length - 1])) bump(this.gluedRootTokens, b, true);
    if (extend) bump(extend, b * open + b, false);
  }

  /** The state after `token` (`previous` before it: a spelling without a leading space only starts after a non-word). */
  private advance(state: BiasState, token: number, previous?: number): BiasState {
    const startsHere = !this.glued.has(token) || this.mayGlue(previous);
    const next = state === ROOT_STATE && !startsHere ? -1 : this.trie.child(state, token);
    if (next >= 0) return this.settle(next);
    const fresh = startsHere ? this.trie.child(0, token) : -1;
    return fresh >= 0 ? this.settle(fresh) : ROOT_STATE;
  }

  private wordRunsThrough(token: number): boolean {
    let r = this.endsInWord.get(token);
    if (r === undefined) {
      r = /[\p{L}\p{N}]$/u.test(this.vocab.decode([token]));
      this.endsInWord.set(token, r);
    }
    return r;
  }

  /** Whether a spelling without a leading space may start after `previous` (no word is running on). */
  private mayGlue(previous: number | undefined): boolean {
    return previous === undefined || previous >= this.vocab.eot || !this.wordRunsThrough(previous);
  }

  /** A completed phrase that nothing longer extends returns to the root (its gain is kept). */
  private settle(node: number): BiasState {
    return this.trie.isEnd(node) && !this.trie.hasChildren(node) ? ROOT_STATE : node;
  }

  /** Tokens of the open match that abandoning it would give back (not the part a shorter phrase completed). */
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
    if (n === seen.length && sharesPrefix(seen, generated, n)) return this.seenState;
    if (n === seen.length + 1 && sharesPrefix(seen, generated, seen.length)) {
      this.seenState = this.advance(this.seenState, generated[n - 1]!, generated[n - 2]);
    } else {
      // A new pass (temperature fallback, next window): replay it.
      let s = ROOT_STATE;
      generated.forEach((t, i) => (s = this.advance(s, t, generated[i - 1])));
      this.seenState = s;
    }
    this.seen = generated.slice();
    return this.seenState;
  }
}

function sharesPrefix(a: readonly number[], b: readonly number[], length: number): boolean {
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}
