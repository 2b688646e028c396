import { recentLists } from './recent-lists';
import { buildPhraseTrie, type BiasVocabulary, type TokenTrie } from './trie';

/** Logit boost per phrase token at bias_strength 1, scaled linearly (about 2 at the default 0.45); see the tuning table. */
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
 * Contextual biasing in the decoder: tokens that extend a phrase gain `boost`, a pass that abandons a
 * partial match gives back what it gained, and a completed phrase keeps its gain. In one logits row this
 * is relative: the extending tokens gain `boost × (open depth + 1)` over every other token.
 */
export function createBiasProcessor(vocab: BiasVocabulary, phrases: readonly string[], strength: number): BiasProcessor {
  const boost = Math.max(0, strength) * TOKEN_BOOST;
  return new TrieBiasProcessor(vocab, phraseTrie(vocab, boost > 0 ? phrases : []), boost);
}

/** A list's trie, and the tokens that start a phrase with and without a leading space. */
interface PhraseTrie {
  trie: TokenTrie;
  /** With one: a phrase may start at any word. */
  spaced: Int32Array;
  /** Without: only where no word is running on ("(ComfyUI", "-Ozempic"). */
  glued: Int32Array;
  gluedSet: ReadonlySet<number>;
}

/** The recent lists' tries, per vocabulary: a custom model's requests reuse its trie. */
const phraseTries = new WeakMap<BiasVocabulary, ReturnType<typeof recentLists<PhraseTrie>>>();

function phraseTrie(vocab: BiasVocabulary, phrases: readonly string[]): PhraseTrie {
  let lists = phraseTries.get(vocab);
  if (!lists) phraseTries.set(vocab, (lists = recentLists<PhraseTrie>()));
  return lists(phrases, () => {
    const trie = buildPhraseTrie(vocab, phrases);
    const starts = [...trie.childTokens(0)];
    const gluedSet = new Set(starts.filter((t) => !vocab.decode([t]).startsWith(' ')));
    return { trie, spaced: Int32Array.from(starts.filter((t) => !gluedSet.has(t))), glued: Int32Array.from(gluedSet), gluedSet };
  });
}

class TrieBiasProcessor implements BiasProcessor {
  readonly active: boolean;
  private readonly trie: TokenTrie;
  /** Per token id seen: whether its text ends in a letter or digit (a word runs on after it). */
  private readonly endsInWord = new Map<number, boolean>();
  private readonly childCache = new Map<number, Int32Array>();
  /** The pass adjustLogits last saw, so a greedy pass advances one token per step. */
  private seen: number[] = [];
  private seenState: BiasState = ROOT_STATE;

  constructor(
    private readonly vocab: BiasVocabulary,
    private readonly phrases: PhraseTrie,
    /** Boost per extending token, in logit units (strength × TOKEN_BOOST). */
    private readonly boost: number,
  ) {
    this.trie = phrases.trie;
    this.active = boost > 0 && phrases.spaced.length + phrases.glued.length > 0;
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
    bump(this.phrases.spaced, b, true);
    if (this.mayGlue(generated[generated.length - 1])) bump(this.phrases.glued, b, true);
    if (extend) bump(extend, b * open + b, false);
  }

  /** The state after `token` (`previous` before it: a spelling without a leading space only starts after a non-word). */
  private advance(state: BiasState, token: number, previous?: number): BiasState {
    const startsHere = !this.phrases.gluedSet.has(token) || this.mayGlue(previous);
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
