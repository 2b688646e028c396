import type { EngineRequest } from '../src/engine-types';
import { compilePattern, type CompiledPattern } from '../src/api/patterns';
import { createBiasProcessor } from './biasing/processor';
import { promptForPhrases } from './biasing/prompt';
import type { DecodeOptions } from './decode-window';
import { fillerTokenIds, VERBATIM_BOOST, verbatimPrompt } from './fillers';
import type { WhisperModel } from './whisper';

/**
 * Up to this bias_strength the phrases only prompt the decoder; above it, tokens that extend a phrase
 * also get a logit boost of (strength - PROMPT_ONLY_STRENGTH) × TOKEN_BOOST. Measured with whisper-tiny
 * and greedy decoding (bench/bias-set/README.md): the prompt alone lifted term recall from 6% to 56%
 * with no harm to unrelated audio, while a boost at the same time hurt unrelated WER by 2-7 points.
 * So the default strength (0.45) prompts, and stronger settings trade that harm for recall.
 */
export const PROMPT_ONLY_STRENGTH = 0.45;

/** How a request steers decoding: vocabulary biasing, verbatim fillers, and patterns applied to the text. */
export interface Steering {
  /** Decoding options for a window in `language` (prompt and logit adjustments). */
  decodeOptions(language: string): Pick<DecodeOptions, 'promptIds' | 'adjustLogits'>;
  patterns: CompiledPattern[];
}

export function steeringFor(whisper: WhisperModel, request: EngineRequest): Steering {
  const vocab = whisper.vocab;
  const biased = request.phrases.length > 0 && request.biasStrength > 0;
  const phrasePrompt = biased ? promptForPhrases(vocab, request.phrases) : [];
  const bias = createBiasProcessor(vocab, biased ? request.phrases : [], Math.max(0, request.biasStrength - PROMPT_ONLY_STRENGTH));
  return {
    patterns: request.patterns.map(compilePattern),
    decodeOptions(language) {
      const verbatim = request.fillerMode === 'verbatim';
      const fillerIds = verbatim ? fillerTokenIds(language, (text) => vocab.encode(text)) : [];
      const fillerPrompt = verbatim ? verbatimPrompt(language) : null;
      const promptIds = [...(fillerPrompt ? vocab.encode(` ${fillerPrompt}`) : []), ...phrasePrompt];
      const adjust = (logits: Float32Array, generated: readonly number[]) => {
        if (bias.active) bias.adjustLogits(logits, generated);
        // not within 3 tokens of a filler: boosted fillers would otherwise feed on themselves ("Um, um, um")
        if (fillerIds.length > 0 && !generated.slice(-3).some((id) => fillerIds.includes(id))) {
          for (const id of fillerIds) logits[id]! += VERBATIM_BOOST;
        }
      };
      return {
        ...(promptIds.length > 0 ? { promptIds } : {}),
        ...(bias.active || fillerIds.length > 0 ? { adjustLogits: adjust } : {}),
      };
    },
  };
}
