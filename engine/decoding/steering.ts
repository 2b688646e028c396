import type { Decoding, EngineRequest } from '../protocol';
import { compilePattern, type CompiledPattern } from '../../src/api/patterns';
import { biasPlan, decodeWithPhrases } from '../biasing/phrases/phrase-pass';
import { decodeWithPatterns } from '../biasing/patterns/pattern-pass';
import { decodeWindow, type DecodeOptions } from './fallback';
import { fillerTokenIds, VERBATIM_BOOST, verbatimPrompt } from '../postprocess/fillers';
import type { EncodedWindow, WhisperModel } from '../whisper/model';
import type { Generation } from '../whisper/generate';
import { tokenBoost } from '../whisper/logits';

/** A window's decoding options before steering: what every request sets. */
export type WindowOptions = Pick<DecodeOptions, 'language' | 'wantAttention' | 'audioSeconds' | 'checkpoint' | 'fallback'>;

/** How a request steers decoding: verbatim fillers, vocabulary biasing, patterns (at decode time here, in the text afterwards). */
export interface Steering {
  /** Decodes one window as the request asks (one pass, or a second, biased look; see phrase-pass.ts). */
  decode(encoded: EncodedWindow, opts: WindowOptions): Promise<Generation>;
  patterns: CompiledPattern[];
}

/** Hypotheses of the first pass at temperature 0 per decoding mode (beam_size 5: OpenAI's default). */
export const BEAMS: Record<Decoding, number> = { fast: 1, accurate: 5 };

export function steeringFor(whisper: WhisperModel, request: EngineRequest, decoding: Decoding = 'fast'): Steering {
  const plan = request.phrases.length > 0 ? biasPlan(request.biasStrength) : null;
  const patterns = request.patterns.map(compilePattern);
  return {
    patterns,
    async decode(encoded, opts) {
      const options = { ...opts, ...fillerOptions(whisper, request, opts.language) };
      // biased and constrained passes stay greedy: each is judged against this pass, not searched
      const first = await decodeWindow(whisper, encoded, { ...options, beams: BEAMS[decoding] });
      if (plan) return decodeWithPhrases(whisper, encoded, options, first, request.phrases, plan);
      // patterns never come with phrases (400 session_rejected)
      return patterns.length > 0 ? decodeWithPatterns(whisper, encoded, options, first, patterns, request.biasStrength) : first;
    },
  };
}

/** verbatim filler mode: a prompt in that style and a boost for filler tokens; nothing otherwise. */
function fillerOptions(whisper: WhisperModel, request: EngineRequest, language: string): Pick<DecodeOptions, 'promptIds' | 'processors'> {
  if (request.fillerMode !== 'verbatim') return {};
  const vocab = whisper.vocab;
  const fillerIds = fillerTokenIds(language, (text) => vocab.encode(text));
  const prompt = verbatimPrompt(language);
  return {
    ...(prompt ? { promptIds: vocab.encode(` ${prompt}`) } : {}),
    // not within 3 tokens of a filler: boosted fillers would otherwise feed on themselves ("Um, um, um")
    ...(fillerIds.length > 0 ? { processors: [tokenBoost(fillerIds, VERBATIM_BOOST, 3)] } : {}),
  };
}
