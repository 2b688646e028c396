import type { DecodeOptions } from '../../decoding/fallback';
import { applyTimestampRules, logSumExp } from '../../whisper/logits';
import type { WhisperVocabulary } from '../../whisper/tokenizer';
import { argmax, closesAtEnd, pick, releaseSelf, repeatsTail, rowAt, type EncodedWindow, type GeneratedToken, type Past, type WhisperModel } from '../../whisper/model';

export type Framing = ReturnType<WhisperModel['framing']>;

/** A decoder row after the window's grammar rules and the pass's own logit adjustment, and its log-normaliser. */
export type MaskedRows = (row: Float32Array, generated: readonly number[]) => { r: Float32Array; z: number };

export function maskedRows(vocab: WhisperVocabulary, opts: DecodeOptions, f: Framing): MaskedRows {
  return (row, generated) => {
    const r = row.slice();
    applyTimestampRules(r, generated, vocab, f.maxTsIndex);
    opts.adjustLogits?.(r, generated);
    return { r, z: logSumExp(r, 0, r.length) };
  };
}

/** Tokens written into a pass: their self-attention cache after `prefix` and them, and the row that follows. */
export interface ForcedTokens {
  tokens: readonly GeneratedToken[];
  self: Past;
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
 * Greedy decoding after `prefix` and the `forced` tokens (the first token after them may not be one of
 * `barred`), rejoining the first pass (`rest`, its tokens after the prefix) when its own tokens come back
 * to it. Disposes `forced.self`.
 */
export async function decodeOn(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  f: Framing,
  prefix: readonly GeneratedToken[],
  forced: ForcedTokens,
  cross: Past,
  rest: readonly GeneratedToken[],
  barred?: Uint8Array,
): Promise<DecodedOn> {
  const v = model.vocab;
  const masked = maskedRows(v, opts, f);
  const tokens = [...prefix, ...forced.tokens];
  const codeEnd = tokens.length;
  const generated = tokens.map((t) => t.id);
  let self = forced.self;
  let raw = forced.row;
  let ended = false;
  try {
    while (tokens.length < f.maxTokens) {
      opts.checkpoint?.();
      const { r, z } = masked(raw, generated);
      if (barred && tokens.length === codeEnd) for (let k = 0; k < v.eot; k++) if (barred[k]) r[k] = -Infinity;
      const id = argmax(r);
      ended = id === v.eot || r[id] === -Infinity;
      if (ended) break;
      tokens.push({ id, logprob: r[id]! - z });
      generated.push(id);
      if (repeatsTail(generated.filter((x) => v.isText(x)))) break;
      ended = closesAtEnd(generated, v, f.maxTsIndex);
      if (ended) break;
      const at = rejoin(tokens, codeEnd, rest);
      if (at >= 0) {
        tokens.push(...rest.slice(at));
        ended = true;
        break;
      }
      const stepped = await model.decoderForward([id], { ...self, ...cross }, encoded, { consumePast: false });
      releaseSelf(self);
      self = pick(stepped.past, '.decoder.');
      raw = rowAt(stepped.logits, 0);
      stepped.logits.dispose();
    }
  } finally {
    releaseSelf(self);
  }
  return { tokens, codeEnd, ended };
}

/**
 * Where the free tokens after forced ones came back to the first pass's remaining tokens: their last two
 * match two consecutive tokens of `rest`. Returns the index in `rest` to continue from, or -1.
 */
function rejoin(tokens: readonly GeneratedToken[], codeEnd: number, rest: readonly GeneratedToken[]): number {
  const n = tokens.length;
  if (n - codeEnd < 2) return -1;
  const [a, b] = [tokens[n - 2]!.id, tokens[n - 1]!.id];
  for (let j = 1; j < rest.length; j++) if (rest[j - 1]!.id === a && rest[j]!.id === b) return j + 1;
  return -1;
}
