import { recentLists } from './recent-lists';
import type { LogitsProcessor } from '../../whisper/logits';
import { buildPhraseTrie, type BiasVocabulary, type TokenTrie } from './trie';

/** Logit boost per phrase token at bias_strength 1, scaled linearly (about 2 at the default 0.45); see the tuning table. */
export const TOKEN_BOOST = 4.5;

/** The trie's root: no phrase partly matched. */
const ROOT = 0;

/**
 * Contextual biasing in the decoder, as one of decodeLoop's logits processors: tokens that extend a
 * phrase gain `strength × TOKEN_BOOST`, a pass that abandons a partial match gives back what it gained,
 * and a completed phrase keeps its gain. In one row this is relative: the extending tokens gain
 * `boost × (open depth + 1)` over every other token. Null where it would change nothing (strength 0, no
 * phrases). It follows a greedy pass a token per step and replays any other history.
 */
export function biasProcessor(vocab: BiasVocabulary, phrases: readonly string[], strength: number): LogitsProcessor | null {
  const boost = Math.max(0, strength) * TOKEN_BOOST;
  if (!(boost > 0)) return null;
  const { trie, spaced, glued, gluedSet } = phraseTrie(vocab, phrases);
  if (spaced.length + glued.length === 0) return null;
  const endsInWord = new Map<number, boolean>();
  const children = new Map<number, Int32Array>();
  // a spelling without a leading space starts only where no word runs on ("(ComfyUI", not "theComfyUI")
  const mayGlue = (previous: number | undefined): boolean => {
    if (previous === undefined || previous >= vocab.eot) return true;
    let word = endsInWord.get(previous);
    if (word === undefined) endsInWord.set(previous, (word = /[\p{L}\p{N}]$/u.test(vocab.decode([previous]))));
    return !word;
  };
  // a completed phrase that nothing longer extends returns to the root (its gain is kept)
  const settle = (node: number) => (trie.isEnd(node) && !trie.hasChildren(node) ? ROOT : node);
  const advance = (node: number, token: number, previous: number | undefined): number => {
    const startsHere = !gluedSet.has(token) || mayGlue(previous);
    const next = node === ROOT && !startsHere ? -1 : trie.child(node, token);
    if (next >= 0) return settle(next);
    const fresh = startsHere ? trie.child(ROOT, token) : -1;
    return fresh >= 0 ? settle(fresh) : ROOT;
  };
  let seen: number[] = [];
  let node = ROOT;
  return (logits, generated) => {
    const n = generated.length;
    if (n === seen.length + 1 && sharesPrefix(seen, generated, seen.length)) {
      node = advance(node, generated[n - 1]!, generated[n - 2]);
      seen = generated.slice();
    } else if (n !== seen.length || !sharesPrefix(seen, generated, n)) {
      node = generated.reduce((s, t, i) => advance(s, t, generated[i - 1]), ROOT);
      seen = generated.slice();
    }
    let extend: Int32Array | null = null;
    if (node !== ROOT) {
      extend = children.get(node) ?? trie.childTokens(node);
      children.set(node, extend);
    }
    const bump = (tokens: Int32Array, amount: number, skipExtending: boolean) => {
      for (const t of tokens) {
        if (t >= logits.length) continue;
        // an extending token gets the larger continuation boost instead
        if (skipExtending && extend && trie.child(node, t) >= 0) continue;
        logits[t] = logits[t]! + amount;
      }
    };
    bump(spaced, boost, true);
    if (mayGlue(generated[n - 1])) bump(glued, boost, true);
    // what abandoning the open match would give back: not the part a shorter phrase completed
    if (extend) bump(extend, boost * (trie.depth(node) - trie.bankedDepth(node)) + boost, false);
  };
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

function sharesPrefix(a: readonly number[], b: readonly number[], length: number): boolean {
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}
