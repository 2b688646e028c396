/**
 * Beam search with phrase biasing (shallow fusion). WhisperModel.generate() runs it through
 * DecoderSteps (worker/whisper.ts) when GenerateOptions.beam is set. The stepper it drives:
 *
 *   interface DecoderStepper<S> {
 *     // runs the prompt (startofprev + prompt ids, sot, language, transcribe) once
 *     start(): Promise<{ state: S; logits: Float32Array }>;
 *     // one decoder step from `state` (its KV cache) fed `token`; must not consume `state`, so two
 *     // hypotheses can extend one parent (the past tensors are immutable inputs: share, refcount)
 *     step(state: S, token: number): Promise<{ state: S; logits: Float32Array }>;
 *     // the KV cache of a hypothesis that no beam entry refers to any more
 *     release(state: S): void;
 *   }
 *
 * In WhisperModel each state owns its self-attention cache and shares the window's cross-attention
 * cache; every state is released exactly once (by this search), so no reference counts are needed.
 * `rules` is applyTimestampRules bound to the window (vocab, maxTimestampIndex).
 */
import { logSumExp } from '../logit-rules';
import type { BiasProcessor, BiasState } from './processor';

export interface DecoderStepper<S> {
  start(): Promise<{ state: S; logits: Float32Array }>;
  step(state: S, token: number): Promise<{ state: S; logits: Float32Array }>;
  release(state: S): void;
}

export interface BeamOptions {
  beamSize: number;
  maxTokens: number;
  eot: number;
  /** Masks one logits row in place for the hypothesis `generated` (Whisper's output grammar). */
  rules(logits: Float32Array, generated: readonly number[]): void;
  bias: BiasProcessor;
  /** Stops early on a hypothesis, like generate()'s loop and closing-timestamp checks. */
  stopsAfter?(generated: readonly number[]): boolean;
  /** OpenAI's length penalty: scores are divided by length^alpha when ranking finished hypotheses; 1 = plain average. */
  lengthPenalty?: number;
}

export interface BeamResult {
  tokens: number[];
  /** The model's log-probability of each token (rule-masked, unbiased). */
  logprobs: number[];
  /** Sum of the model's log-probabilities (rule-masked, unbiased). */
  logprob: number;
  /** Ended by the end-of-text token (rather than stopsAfter or the token limit). */
  endedWithEot: boolean;
  /** Total bias gain kept (completed phrases only: open matches gave theirs back). */
  biasScore: number;
}

interface Hypothesis<S> {
  tokens: number[];
  logprobs: number[];
  logprob: number;
  bias: number;
  biasState: BiasState;
  state: S;
  logits: Float32Array;
}

/**
 * Keeps `beamSize` hypotheses ranked by model log-probability plus bias score; each expands by its
 * `beamSize` best next tokens under the biased row, so a phrase the plain model ranks second can
 * still be followed to its end and win once complete (or lose its gain when abandoned).
 */
export async function beamSearch<S>(stepper: DecoderStepper<S>, opts: BeamOptions): Promise<BeamResult> {
  const first = await stepper.start();
  let beam: Hypothesis<S>[] = [{ tokens: [], logprobs: [], logprob: 0, bias: 0, biasState: 0, state: first.state, logits: first.logits }];
  const finished: BeamResult[] = [];
  const alpha = opts.lengthPenalty ?? 1;
  const rank = (r: { tokens: number[]; logprob: number; biasScore: number }) =>
    (r.logprob + r.biasScore) / Math.max(1, r.tokens.length) ** alpha;

  for (let step = 0; step < opts.maxTokens && beam.length > 0; step++) {
    const candidates: Array<{ parent: Hypothesis<S>; token: number; tokenLogprob: number; logprob: number; bias: number; biasState: BiasState }> = [];
    for (const h of beam) {
      const row = h.logits;
      opts.rules(row, h.tokens);
      const logZ = logSumExp(row, 0, row.length);
      const boosted = row.slice();
      opts.bias.boostRow(h.biasState, boosted, h.tokens[h.tokens.length - 1]);
      for (const token of topK(boosted, opts.beamSize)) {
        const moved = opts.bias.advance(h.biasState, token, h.tokens[h.tokens.length - 1]);
        const tokenLogprob = row[token]! - logZ;
        candidates.push({ parent: h, token, tokenLogprob, logprob: h.logprob + tokenLogprob, bias: h.bias + moved.delta, biasState: moved.state });
      }
    }
    candidates.sort((a, b) => b.logprob + b.bias - (a.logprob + a.bias));
    const next: Hypothesis<S>[] = [];
    for (const [rankIndex, c] of candidates.entries()) {
      if (next.length >= opts.beamSize) break;
      const tokens = [...c.parent.tokens, c.token];
      const logprobs = [...c.parent.logprobs, c.tokenLogprob];
      const eot = c.token === opts.eot;
      if (eot || opts.stopsAfter?.(tokens)) {
        // an ending below the best few candidates is not a contender, only filler of the top-k
        if (rankIndex >= opts.beamSize) continue;
        const kept = eot ? tokens.slice(0, -1) : tokens;
        const keptLogprobs = eot ? logprobs.slice(0, -1) : logprobs;
        const biasScore = c.bias + opts.bias.finish(c.biasState);
        finished.push({ tokens: kept, logprobs: keptLogprobs, logprob: c.logprob, endedWithEot: eot, biasScore });
        continue;
      }
      const { state, logits } = await stepper.step(c.parent.state, c.token);
      next.push({ tokens, logprobs, logprob: c.logprob, bias: c.bias, biasState: c.biasState, state, logits });
    }
    for (const h of beam) stepper.release(h.state);
    beam = next;
    if (finished.length >= opts.beamSize) break;
  }
  for (const h of beam) {
    finished.push({ tokens: h.tokens, logprobs: h.logprobs, logprob: h.logprob, endedWithEot: false, biasScore: h.bias + opts.bias.finish(h.biasState) });
    stepper.release(h.state);
  }
  return finished.reduce((best, r) => (rank(r) > rank(best) ? r : best));
}

function topK(row: Float32Array, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < row.length; i++) {
    const v = row[i]!;
    if (v === -Infinity) continue;
    if (best.length < k) {
      best.push(i);
      best.sort((a, b) => row[b]! - row[a]!);
    } else if (v > row[best[k - 1]!]!) {
      best[k - 1] = i;
      best.sort((a, b) => row[b]! - row[a]!);
    }
  }
  return best;
}
