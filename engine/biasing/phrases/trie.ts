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
 * A prefix tree over token ids. Node 0 is the root. Children of a node are a singly linked list
 * (firstChild / nextSibling), lookup goes through one map keyed by (node, token), so 10,000 phrases
 * in six spellings stay a few hundred thousand integers rather than a Map per node.
 */
export class TokenTrie {
  private readonly edges = new Map<number, number>();
  private parentOf: Int32Array;
  /** Depth of the deepest phrase end on the path to each node (0 when none); see finish(). */
  private bankedOf: Uint16Array | null = null;
  private tokenOf: Int32Array;
  private firstChild: Int32Array;
  private nextSibling: Int32Array;
  private depthOf: Uint16Array;
  private endOf: Uint8Array;
  private size = 1;

  constructor() {
    this.parentOf = new Int32Array(64).fill(-1);
    this.tokenOf = new Int32Array(64).fill(-1);
    this.firstChild = new Int32Array(64).fill(-1);
    this.nextSibling = new Int32Array(64).fill(-1);
    this.depthOf = new Uint16Array(64);
    this.endOf = new Uint8Array(64);
  }

  get nodeCount(): number {
    return this.size;
  }

  insert(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.bankedOf = null;
    let node = 0;
    for (const id of ids) {
      const next = this.child(node, id);
      node = next >= 0 ? next : this.addChild(node, id);
    }
    this.endOf[node] = 1;
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
    return this.endOf[node] === 1;
  }

  /**
   * Tokens on the path to `node` that a completed phrase has already claimed: the depth of the
   * deepest phrase end at or above it. The rest of the depth is a partial match that can still fail.
   */
  bankedDepth(node: number): number {
    if (!this.bankedOf) {
      const banked = new Uint16Array(this.size);
      // Parents are created before their children, so one forward pass sees each parent first.
      for (let n = 1; n < this.size; n++) banked[n] = this.endOf[n] ? this.depthOf[n]! : banked[this.parentOf[n]!]!;
      this.bankedOf = banked;
    }
    return this.bankedOf[node]!;
  }

  hasChildren(node: number): boolean {
    return this.firstChild[node]! >= 0;
  }

  /** Calls `visit` with the token of each child of `node`. */
  forEachChildToken(node: number, visit: (token: number) => void): void {
    for (let c = this.firstChild[node]!; c >= 0; c = this.nextSibling[c]!) visit(this.tokenOf[c]!);
  }

  /** The tokens that extend `node`, as a flat array (for hot loops). */
  childTokens(node: number): Int32Array {
    let n = 0;
    for (let c = this.firstChild[node]!; c >= 0; c = this.nextSibling[c]!) n++;
    const out = new Int32Array(n);
    let i = 0;
    for (let c = this.firstChild[node]!; c >= 0; c = this.nextSibling[c]!) out[i++] = this.tokenOf[c]!;
    return out;
  }

  private addChild(parent: number, token: number): number {
    if (this.size === this.tokenOf.length) this.grow();
    if (token < 0 || token >= KEY_STRIDE) throw new RangeError(`token id ${token} out of range`);
    const node = this.size++;
    this.parentOf[node] = parent;
    this.tokenOf[node] = token;
    this.depthOf[node] = this.depthOf[parent]! + 1;
    this.nextSibling[node] = this.firstChild[parent]!;
    this.firstChild[parent] = node;
    this.edges.set(parent * KEY_STRIDE + token, node);
    return node;
  }

  private grow(): void {
    const cap = this.tokenOf.length * 2;
    const widen = <T extends Int32Array | Uint16Array | Uint8Array>(a: T, fill: number): T => {
      const b = new (a.constructor as new (n: number) => T)(cap);
      b.fill(fill);
      b.set(a);
      return b;
    };
    this.parentOf = widen(this.parentOf, -1);
    this.tokenOf = widen(this.tokenOf, -1);
    this.firstChild = widen(this.firstChild, -1);
    this.nextSibling = widen(this.nextSibling, -1);
    this.depthOf = widen(this.depthOf, 0);
    this.endOf = widen(this.endOf, 0);
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
