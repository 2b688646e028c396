/**
 * Our side of the parity check: the one call into the decoder it makes. Whoever changes the decoding
 * API keeps this adapter working, so the parity test and bench follow the engine's decoding loop.
 */
import { closesAtEnd } from '../../engine/whisper/generate';
import type { EncodedWindow, WhisperModel } from '../../engine/whisper/model';

/** Why our pass ended: its end of text, or one of the stopping rules the reference does not have. */
export type OurStop = 'end-of-text' | 'loop' | 'max-length' | 'end-of-audio';

export interface OurPass {
  /** Generated ids after the prompt, the end of text left out. */
  ids: number[];
  /** Per id, its log-probability under our processed distribution. */
  logprobs: number[];
  stop: OurStop;
  /** The pass's token budget. */
  maxTokens: number;
}

/** One greedy pass at temperature 0 over one full 30 s window, timestamps on, no prompt, no attention. */
export async function ourGreedyTokens(model: WhisperModel, encoded: EncodedWindow, options: { language: string; audioSeconds: number }): Promise<OurPass> {
  const opts = { language: options.language, temperature: 0, wantAttention: false, audioSeconds: options.audioSeconds };
  const gen = await model.generate(encoded, opts);
  const ids = gen.tokens.map((t) => t.id);
  const { maxTokens, maxTsIndex } = model.framing(encoded, opts);
  const stop: OurStop = gen.looped ? 'loop' : ids.length >= maxTokens ? 'max-length' : closesAtEnd(ids, model.vocab, maxTsIndex) ? 'end-of-audio' : 'end-of-text';
  return { ids, logprobs: gen.tokens.map((t) => t.logprob), stop, maxTokens };
}
