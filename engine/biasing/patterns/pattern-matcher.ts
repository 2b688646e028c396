import type { CompiledPattern, PatternNode } from '../../../src/api/patterns';

interface NfaNode {
  /** null: an epsilon node (a choice, or the accepting end when `out` is empty). */
  test: ((c: string) => boolean) | null;
  out: number[];
}

/** The set of NFA nodes reached after the text so far; `accepting` when that text is a whole match. */
export interface MatchState {
  readonly key: string;
  readonly nodes: readonly number[];
  readonly accepting: boolean;
  /** Some character can still follow. */
  readonly open: boolean;
  /** Indices of the patterns the text is still a prefix of a match of, and of those it matches. */
  readonly alive: readonly number[];
  readonly accepted: readonly number[];
}

const matchers = new WeakMap<readonly CompiledPattern[], PatternMatcher>();

/** The matcher of a request's `patterns`, built once: the pass and every text rewrite share its memoised steps. */
export function matcherFor(patterns: readonly CompiledPattern[]): PatternMatcher {
  let matcher = matchers.get(patterns);
  if (!matcher) matchers.set(patterns, (matcher = new PatternMatcher(patterns)));
  return matcher;
}

/**
 * Tells whether a written prefix still leads to a match of some pattern: a Thompson NFA over all
 * patterns at once (repeats unrolled: a pattern is at most 32 characters), stepped a character at a
 * time with memoised transitions. Case-sensitive, like the patterns' regex.
 */
export class PatternMatcher {
  private readonly nfa: NfaNode[] = [];
  /** The pattern each node belongs to; each pattern has its own accepting node. */
  private readonly owner: number[] = [];
  private readonly accepts = new Set<number>();
  private building = 0;
  private readonly states = new Map<string, MatchState>();
  private readonly steps = new Map<string, MatchState | null>();
  readonly start: MatchState;

  constructor(patterns: readonly CompiledPattern[]) {
    const entries = patterns.map((p, i) => {
      this.building = i;
      const accept = this.add(null, []);
      this.accepts.add(accept);
      return this.build(p.ast, accept);
    });
    this.start = this.state(this.closure(entries));
  }

  /** The state after `text`, or null when no pattern has a match starting with it. */
  advance(state: MatchState, text: string): MatchState | null {
    let s: MatchState | null = state;
    for (const c of text) {
      if (!s) return null;
      s = this.step(s, c);
    }
    return s;
  }

  /**
   * The states after one spoken symbol (the characters it may stand for, a letter in either case), with
   * what each writes: a code spoken aloud leaves out the pattern's separators, so one may come before it.
   */
  readSymbol(state: MatchState, symbol: readonly string[]): Array<{ state: MatchState; written: string }> {
    const out: Array<{ state: MatchState; written: string }> = [];
    for (const c of symbol) {
      for (const ch of new Set([c, c.toLowerCase()])) {
        for (const written of [ch, ` ${ch}`, `-${ch}`]) {
          const next = this.advance(state, written);
          if (next) out.push({ state: next, written });
        }
      }
    }
    return out;
  }

  /** Whether `text` as a whole matches a pattern. */
  matches(text: string): boolean {
    return this.advance(this.start, text)?.accepting ?? false;
  }

  private step(state: MatchState, c: string): MatchState | null {
    const key = `${state.key}|${c}`;
    let next = this.steps.get(key);
    if (next === undefined) {
      const targets = state.nodes.flatMap((n) => (this.nfa[n]!.test!(c) ? this.nfa[n]!.out : []));
      next = targets.length > 0 ? this.state(this.closure(targets)) : null;
      if (next && next.alive.length === 0) next = null;
      this.steps.set(key, next);
    }
    return next;
  }

  private state(reached: Set<number>): MatchState {
    const nodes = [...reached].filter((n) => this.nfa[n]!.test !== null).sort((a, b) => a - b);
    const ends = [...reached].filter((n) => this.accepts.has(n)).sort((a, b) => a - b);
    const key = `${ends.join(',')}|${nodes.join(',')}`;
    let s = this.states.get(key);
    if (!s) {
      const accepted = [...new Set(ends.map((n) => this.owner[n]!))];
      const alive = [...new Set([...nodes, ...ends].map((n) => this.owner[n]!))];
      s = { key, nodes, accepting: accepted.length > 0, open: nodes.length > 0, alive, accepted };
      this.states.set(key, s);
    }
    return s;
  }

  private closure(from: readonly number[]): Set<number> {
    const seen = new Set<number>();
    const stack = [...from];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (seen.has(n)) continue;
      seen.add(n);
      if (this.nfa[n]!.test === null) stack.push(...this.nfa[n]!.out);
    }
    return seen;
  }

  private add(test: NfaNode['test'], out: number[]): number {
    this.nfa.push({ test, out });
    this.owner.push(this.building);
    return this.nfa.length - 1;
  }

  /** Adds `node` so that matching it leads on to `next`; returns its entry. */
  private build(node: PatternNode, next: number): number {
    switch (node.kind) {
      case 'literal':
      case 'separator': {
        const ch = node.char;
        return this.add((c) => c === ch, [next]);
      }
      case 'class': {
        const ranges = node.ranges;
        return this.add((c) => ranges.some(([from, to]) => c >= from && c <= to), [next]);
      }
      case 'sequence': {
        let entry = next;
        for (let i = node.items.length - 1; i >= 0; i--) entry = this.build(node.items[i]!, entry);
        return entry;
      }
      case 'repeat': {
        // X{m,n} as X…X (m times) then (X(X(…)?)?)? with n - m optional copies
        let entry = next;
        for (let i = node.min; i < node.max; i++) entry = this.add(null, [this.build(node.node, entry), next]);
        for (let i = 0; i < node.min; i++) entry = this.build(node.node, entry);
        return entry;
      }
    }
  }
}
