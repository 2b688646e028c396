import type { WhisperVocabulary } from './tokenizer';

/**
 * Adjusts one vocabulary row in place before the next token is chosen (decodeLoop in generate.ts);
 * `generated` holds every token after the prompt.
 */
export type LogitsProcessor = (row: Float32Array, generated: readonly number[]) => void;

/** Largest initial timestamp allowed, as in OpenAI's decoder (1.0 s = 50 steps of 20 ms). */
const MAX_INITIAL_TIMESTAMP_INDEX = 50;

/**
 * Whisper's output grammar, the processors every free token passes first: suppressed and special
 * tokens, then the timestamp rules (`maxTimestampIndex`: the window's audio in 20 ms steps).
 */
export function whisperGrammar(vocab: WhisperVocabulary, maxTimestampIndex: number): LogitsProcessor[] {
  return [suppressTokens(vocab), timestampRules(vocab, maxTimestampIndex)];
}

/** The model's suppress list, every special token but the end of text, and its begin-suppress list at the first token. */
export function suppressTokens(vocab: WhisperVocabulary): LogitsProcessor {
  return (logits, generated) => {
    for (const id of vocab.suppress) if (id < logits.length) logits[id] = -Infinity;
    for (let id = vocab.eot + 1; id < vocab.timestampBegin; id++) logits[id] = -Infinity;
    if (generated.length === 0) for (const id of vocab.beginSuppress) logits[id] = -Infinity;
  };
}

/**
 * Timestamps in non-decreasing pairs inside the window, the first within its first second, and a
 * timestamp forced when timestamps together are likelier than any single text token.
 */
export function timestampRules(vocab: WhisperVocabulary, maxTimestampIndex: number): LogitsProcessor {
  return (logits, generated) => {
    const tsBegin = vocab.timestampBegin;
    const vocabSize = logits.length;
    const n = generated.length;
    const lastWasTs = n >= 1 && generated[n - 1]! >= tsBegin;
    const penultimateWasTs = n < 2 || generated[n - 2]! >= tsBegin;
    if (lastWasTs) {
      if (penultimateWasTs) fill(logits, tsBegin, vocabSize);
      else fill(logits, 0, vocab.eot);
    }
    let lastTs = -1;
    for (let i = n - 1; i >= 0; i--) {
      if (generated[i]! >= tsBegin) {
        lastTs = generated[i]!;
        break;
      }
    }
    if (lastTs >= 0) {
      const floor = lastWasTs && !penultimateWasTs ? lastTs : lastTs + 1;
      fill(logits, tsBegin, Math.min(floor, vocabSize));
    }
    if (n === 0) {
      fill(logits, 0, tsBegin);
      fill(logits, tsBegin + MAX_INITIAL_TIMESTAMP_INDEX + 1, vocabSize);
    }
    fill(logits, tsBegin + maxTimestampIndex + 1, vocabSize);

    // If the timestamps together outweigh the best text token, a timestamp must come next. (OpenAI compares
    // log-probabilities; the row's normalizer is on both sides, so the logits compare the same.)
    let maxText = -Infinity;
    for (let id = 0; id < tsBegin; id++) if (logits[id]! > maxText) maxText = logits[id]!;
    if (logSumExp(logits, tsBegin, vocabSize) > maxText) fill(logits, 0, tsBegin);
  };
}

/** Every token but the language tokens of `codes` masked: language identification among candidates. */
export function languageRestriction(vocab: WhisperVocabulary, codes: readonly string[]): LogitsProcessor {
  const allowed = codes.map((c) => vocab.languageToken(c));
  return (logits) => {
    const kept = allowed.map((id) => logits[id]!);
    logits.fill(-Infinity);
    allowed.forEach((id, i) => (logits[id] = kept[i]!));
  };
}

/** Adds `boost` to `ids` unless one of them is among the last `gap` tokens (a boosted token would feed on itself). */
export function tokenBoost(ids: readonly number[], boost: number, gap: number): LogitsProcessor {
  return (logits, generated) => {
    if (!generated.slice(-gap).some((id) => ids.includes(id))) for (const id of ids) logits[id]! += boost;
  };
}

function fill(a: Float32Array, from: number, to: number): void {
  if (to > from) a.fill(-Infinity, from, to);
}

/** Steps per nat of EXP_STEPS. */
const STEPS_PER_NAT = 8;

/** e^(-j / STEPS_PER_NAT), down to where a double underflows. */
const EXP_STEPS = Float64Array.from({ length: 746 * STEPS_PER_NAT }, (_, j) => Math.exp(-j / STEPS_PER_NAT));

/**
 * log Σ e^a[i] over [from, to). Each e^(a[i] - max) is a table step times a degree-6 Taylor polynomial
 * over less than 1/8 nat (relative error under 1e-10), not Math.exp: a row over the 51,865-token
 * vocabulary took about 1 ms with Math.exp and 0.35 ms so, and rows are normalized at every decoded
 * token and scored one (13% of biasing time on bench/bias-set with tiny). Off by at most 4e-11 on 333
 * of tiny's rows from a meeting.
 */
export function logSumExp(a: Float32Array, from: number, to: number): number {
  let max = -Infinity;
  for (let i = from; i < to; i++) if (a[i]! > max) max = a[i]!;
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (let i = from; i < to; i++) {
    const steps = (max - a[i]!) * STEPS_PER_NAT;
    if (!(steps < EXP_STEPS.length)) continue;
    const j = steps | 0;
    const t = (j - steps) / STEPS_PER_NAT;
    sum += EXP_STEPS[j]! * (1 + t * (1 + t * (1 / 2 + t * (1 / 6 + t * (1 / 24 + t * (1 / 120 + t / 720))))));
  }
  return max + Math.log(sum);
}
