import type { MatchState, PatternMatcher } from './pattern-matcher';
import type { SpokenCodeWord } from './spoken-patterns';

/** Where a spoken code stands: the pattern states its symbols reach, and a repeat word waiting for its symbol. */
export interface SpokenCodeState extends Pick<MatchState, 'open' | 'alive' | 'accepted'> {
  readonly states: readonly MatchState[];
  /** Times the next symbol is written ("double" 2), 0 when no repeat word is waiting. */
  readonly repeat: number;
  /** A repeat word has been read. */
  readonly repeated: boolean;
}

/**
 * Steps a code spoken word by word ("B seven double five Q") through the patterns, as applyPatterns
 * later reads it: each word's symbols in turn, any pattern separator allowed before a symbol
 * (spoken codes leave them out), "double"/"triple" writing the next symbol two or three times.
 */
export class SpokenCodeReader {
  readonly start: SpokenCodeState;

  constructor(private readonly matcher: PatternMatcher) {
    this.start = state([matcher.start], 0, false);
  }

  /** The state after `word`, or null when no pattern's code goes on so. */
  advance(at: SpokenCodeState, word: SpokenCodeWord): SpokenCodeState | null {
    if ('repeat' in word) return at.repeat > 0 ? null : state(at.states, word.repeat, true);
    if (at.repeat > 0 && word.symbols.length !== 1) return null;
    const symbols = at.repeat > 0 ? Array<readonly string[]>(at.repeat).fill(word.symbols[0]!) : word.symbols;
    let states = at.states;
    for (const symbol of symbols) {
      states = this.step(states, symbol);
      if (states.length === 0) return null;
    }
    return state(states, 0, at.repeated);
  }

  private step(states: readonly MatchState[], symbol: readonly string[]): MatchState[] {
    const next = new Map<string, MatchState>();
    for (const s of states) for (const { state } of this.matcher.readSymbol(s, symbol)) next.set(state.key, state);
    return [...next.values()];
  }
}

function state(states: readonly MatchState[], repeat: number, repeated: boolean): SpokenCodeState {
  const union = (f: (s: MatchState) => readonly number[]) => [...new Set(states.flatMap(f))];
  return {
    states,
    repeat,
    repeated,
    open: repeat > 0 || states.some((s) => s.open),
    alive: union((s) => s.alive),
    accepted: repeat > 0 ? [] : union((s) => s.accepted),
  };
}
