import type { EngineRequest } from '../src/engine-types';
import { compilePattern, type CompiledPattern } from '../src/api/patterns';
import { createBiasProcessor } from './biasing/processor';
import { promptForPhrases } from './biasing/prompt';
import type { DecodeOptions } from './decode-window';
import { fillerTokenIds, VERBATIM_BOOST, verbatimPrompt } from './fillers';
import type { WhisperModel } from './whisper';

/** The default bias_strength (spec 4.3). */
export const DEFAULT_STRENGTH = 0.45;
/** Hypotheses kept when biasing is on (each costs one decoder step per token). */
export const BIAS_BEAM_SIZE = 4;

/** How a bias_strength is spent: phrases as the decoder's prompt, a per-token boost, a beam. */
export interface BiasPlan {
  /** The phrase list (as much as fits, see prompt.ts) as Whisper's previous-text prompt. */
  prompt: boolean;
  /** Strength given to the trie processor: a token extending a phrase gains boostStrength × TOKEN_BOOST. */
  boostStrength: number;
  /** Beam size at temperature 0 (1: greedy). */
  beam: number;
}

/**
 * The mapping from bias_strength to decoding, picked from bench/bias-set/README.md. 0 is off (greedy,
 * no prompt: the same output as no biasing). Above 0 a beam follows tokens that extend a phrase with a
 * boost of boostStrength × TOKEN_BOOST each, and gives the boost back when the match is abandoned, so
 * ordinary words survive. The boost stops growing at the default's (2.0 per token): larger ones let
 * made-up list names win. Only above 1 does the phrase list also prompt the decoder: it recovers more
 * terms (tiny 50% → 72%, base 50% → 78% on voice slt) but inserted list names into unrelated speech
 * (base, ../shared/eval/en: WER 3.1% → 26.4%, 5 insertions in 52 s), far beyond the limits.
 */
export function biasPlan(strength: number): BiasPlan {
  if (!(strength > 0)) return { prompt: false, boostStrength: 0, beam: 1 };
  return { prompt: strength > 1, boostStrength: Math.min(strength, DEFAULT_STRENGTH), beam: BIAS_BEAM_SIZE };
}

/** How a request steers decoding: vocabulary biasing, verbatim fillers, and patterns applied to the text. */
export interface Steering {
  /** Decoding options for a window in `language` (prompt, logit adjustments, beam). */
  decodeOptions(language: string): Pick<DecodeOptions, 'promptIds' | 'adjustLogits' | 'beam'>;
  patterns: CompiledPattern[];
}

export function steeringFor(whisper: WhisperModel, request: EngineRequest): Steering {
  const vocab = whisper.vocab;
  const biased = request.phrases.length > 0 && request.biasStrength > 0;
  const plan = biasPlan(biased ? request.biasStrength : 0);
  const phrasePrompt = plan.prompt ? promptForPhrases(vocab, request.phrases) : [];
  const bias = createBiasProcessor(vocab, biased ? request.phrases : [], plan.boostStrength);
  return {
    patterns: request.patterns.map(compilePattern),
    decodeOptions(language) {
      const verbatim = request.fillerMode === 'verbatim';
      const fillerIds = verbatim ? fillerTokenIds(language, (text) => vocab.encode(text)) : [];
      const fillerPrompt = verbatim ? verbatimPrompt(language) : null;
      const promptIds = [...(fillerPrompt ? vocab.encode(` ${fillerPrompt}`) : []), ...phrasePrompt];
      // not within 3 tokens of a filler: boosted fillers would otherwise feed on themselves ("Um, um, um")
      const fillers = (logits: Float32Array, generated: readonly number[]) => {
        if (!generated.slice(-3).some((id) => fillerIds.includes(id))) for (const id of fillerIds) logits[id]! += VERBATIM_BOOST;
      };
      const adjust = (logits: Float32Array, generated: readonly number[]) => {
        if (bias.active) bias.adjustLogits(logits, generated);
        if (fillerIds.length > 0) fillers(logits, generated);
      };
      const beam = biased && plan.beam > 1 ? { size: plan.beam, bias, ...(fillerIds.length > 0 ? { adjustLogits: fillers } : {}) } : null;
      return {
        ...(promptIds.length > 0 ? { promptIds } : {}),
        ...(bias.active || fillerIds.length > 0 ? { adjustLogits: adjust } : {}),
        ...(beam ? { beam } : {}),
      };
    },
  };
}
