import type { DecodeOptions } from '../../decoding/fallback';
import { decodeLoop, passProcessors, passStops, type GeneratedToken, type StoppingCriterion } from '../../whisper/generate';
import type { KvCache } from '../../whisper/kv-cache';
import type { LogitsProcessor } from '../../whisper/logits';
import type { EncodedWindow, WhisperModel } from '../../whisper/model';

export type Framing = ReturnType<WhisperModel['framing']>;

/** Tokens written into a pass: the cache after the prompt, the prefix and them, and the row that follows. */
export interface ForcedTokens {
  tokens: readonly GeneratedToken[];
  cache: KvCache;
  row: Float32Array;
}

/** A pass decoded on from forced tokens. */
export interface DecodedOn {
  tokens: GeneratedToken[];
  /** Index just past the forced tokens. */
  codeEnd: number;
  /** It came to an end (or back to the first pass) rather than looping or running out of tokens. */
  ended: boolean;
}

/**
 * Greedy decoding (the one loop, generate.ts) after `prefix` and the `forced` tokens (the first token
 * after them may not be one of `barred`), rejoining the first pass (`rest`, its tokens after the
 * prefix) when its own tokens come back to it. Releases `forced.cache`.
 */
export async function decodeOn(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  f: Framing,
  prefix: readonly GeneratedToken[],
  forced: ForcedTokens,
  rest: readonly GeneratedToken[],
  barred?: Uint8Array,
): Promise<DecodedOn> {
  const v = model.vocab;
  const codeEnd = prefix.length + forced.tokens.length;
  const processors = passProcessors(v, f.maxTsIndex, opts);
  if (barred) processors.push(barredAt(codeEnd, barred, v.eot));
  const result = await decodeLoop(
    model,
    encoded,
    { cache: forced.cache, row: forced.row, attention: null, tokens: [...prefix, ...forced.tokens] },
    {
      processors,
      stops: [...passStops(v, f.maxTsIndex, {}), rejoinStop(codeEnd, rest)],
      maxTokens: f.maxTokens,
      temperature: 0,
      wantAttention: false,
      ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}),
    },
  );
  const tokens = result.tokens;
  if (result.stop === 'rejoined') tokens.push(...rest.slice(rejoin(tokens.map((t) => t.id), codeEnd, rest)));
  return { tokens, codeEnd, ended: ENDED.has(result.stop) };
}

/** Stops that leave a pass whole: everything but a loop, the token budget or a cancel. */
const ENDED = new Set(['end-of-text', 'no-token', 'end-of-audio', 'rejoined']);

/** Masks `barred` text tokens at token index `at` (the first token after forced ones). */
function barredAt(at: number, barred: Uint8Array, eot: number): LogitsProcessor {
  return (row, generated) => {
    if (generated.length === at) for (let k = 0; k < eot; k++) if (barred[k]) row[k] = -Infinity;
  };
}

function rejoinStop(codeEnd: number, rest: readonly GeneratedToken[]): StoppingCriterion {
  return (ids) => (rejoin(ids, codeEnd, rest) >= 0 ? 'rejoined' : null);
}

/**
 * Where the free tokens after forced ones came back to the first pass's remaining tokens: their last two
 * match two consecutive tokens of `rest`. Returns the index in `rest` to continue from, or -1.
 */
function rejoin(ids: readonly number[], codeEnd: number, rest: readonly GeneratedToken[]): number {
  const n = ids.length;
  if (n - codeEnd < 2) return -1;
  const [a, b] = [ids[n - 2]!, ids[n - 1]!];
  for (let j = 1; j < rest.length; j++) if (rest[j - 1]!.id === a && rest[j]!.id === b) return j + 1;
  return -1;
}
