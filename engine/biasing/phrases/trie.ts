/** The subset of WhisperVocabulary that biasing needs (keeps these modules testable without a model). */
export interface BiasVocabulary {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  readonly eot: number;
}

/**
 * The spellings Whisper may emit for one phrase: as written, with its first letter capitalised and
 * lower-cased, each with and without the leading space that a word inside a sentence carries.
 */
export function phraseVariants(phrase: string): string[] {
  const p = phrase.trim().replace(/\s+/g, ' ');
  if (!p) return [];
  const first = p[0]!;
  const forms = new Set([p, first.toUpperCase() + p.slice(1), first.toLowerCase() + p.slice(1)]);
  const out: string[] = [];
  for (const f of forms) out.push(` ${f}`, f);
  return out;
}

/** Edge keys are node * KEY_STRIDE + token; Whisper's vocabulary (51,865) fits below it. */
const KEY_STRIDE = 1 << 17;

/**
 * A prefix tree over token ids. Node 0 is the root. Per-node facts sit in flat arrays, children as a
 * linked list (firstChild / nextSibling), and lookup goes through one map keyed by (node, token), so
 * 10,000 phrases in six spellings stay a few hundred thousand integers rather than a Map per node.
 */
export class TokenTrie {
  private readonly edges = new Map<number, number>();
  private readonly parentOf = [-1];
  private readonly tokenOf = [-1];
  private readonly firstChild = [-1];
  private readonly nextSibling = [-1];
  private readonly depthOf = [0];
  private readonly endOf = [false];
  /** Depth of the deepest phrase end on the path to each node (0 when none); see bankedDepth(). */
  private bankedOf: number[] | null = null;

  get nodeCount(): number {
    return this.tokenOf.length;
  }

  insert(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.bankedOf = null;
    let node = 0;
    for (const id of ids) {
      const next = this.child(node, id);
      node = next >= 0 ? next : this.addChild(node, id);
    }
    this.endOf[node] = true;
  }

  /** The child of `node` reached by `token`, or -1. */
  child(node: number, token: number): number {
    return this.edges.get(node * KEY_STRIDE + token) ?? -1;
  }

  depth(node: number): number {
    return this.depthOf[node]!;
  }

  /** Whether a whole phrase ends at `node`. */
  isEnd(node: number): boolean {
    return this.endOf[node]!;
  }

  /**
   * Tokens on the path to `node` that a completed phrase has already claimed: the depth of the
   * deepest phrase end at or above it. The rest of the depth is a partial match that can still fail.
   */
  bankedDepth(node: number): number {
    if (!this.bankedOf) {
      // parents are created before their children, so one forward pass sees each parent first
      const banked = [0];
      for (let n = 1; n < this.nodeCount; n++) banked.push(this.endOf[n] ? this.depthOf[n]! : banked[this.parentOf[n]!]!);
      this.bankedOf = banked;
    }
    return this.bankedOf[node]!;
  }

  hasChildren(node: number): boolean {
    return this.firstChild[node]! >= 0;
  }

  /** The tokens that extend `node`, as a flat array (for hot loops). */
  childTokens(node: number): Int32Array {
    const out: number[] = [];
    for (let c = this.firstChild[node]!; c >= 0; c = this.nextSibling[c]!) out.push(this.tokenOf[c]!);
    return Int32Array.from(out);
  }

  private addChild(parent: number, token: number): number {
    if (token < 0 || token >= KEY_STRIDE) throw new RangeError(`token id ${token} out of range`);
    const node = this.nodeCount;
    this.parentOf.push(parent);
    this.tokenOf.push(token);
    this.depthOf.push(this.depthOf[parent]! + 1);
    this.endOf.push(false);
    this.firstChild.push(-1);
    this.nextSibling.push(this.firstChild[parent]!);
    this.firstChild[parent] = node;
    this.edges.set(parent * KEY_STRIDE + token, node);
    return node;
  }
}

/** Builds the trie of every phrase in every spelling Whisper may emit. */
export function buildPhraseTrie(vocab: BiasVocabulary, phrases: readonly string[]): TokenTrie {
  const trie = new TokenTrie();
  for (const phrase of phrases) {
    for (const form of phraseVariants(phrase)) {
      const ids = vocab.encode(form);
      if (ids.every((id) => id < vocab.eot)) trie.insert(ids);
    }
  }
  return trie;
}
