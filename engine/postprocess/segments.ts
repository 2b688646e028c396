import type { EngineToken } from '../protocol';
import { ENCODER_FRAME_MS } from '../whisper/features';
import type { WhisperVocabulary } from '../whisper/tokenizer';
import type { GeneratedToken } from '../whisper/generate';

export interface TimedSegment {
  /** Seconds from the window start. */
  start: number;
  end: number;
  tokens: GeneratedToken[];
}

const TS_STEP = ENCODER_FRAME_MS / 1000;

/**
 * Splits a timestamped generation into segments at timestamp pairs: <|t0|> text <|t1|><|t1|> text <|t2|> ...
 * A trailing segment without a closing timestamp ends at `windowSeconds`.
 */
export function splitAtTimestamps(tokens: readonly GeneratedToken[], vocab: WhisperVocabulary, windowSeconds: number): TimedSegment[] {
  const segments: TimedSegment[] = [];
  let start: number | null = null;
  let text: GeneratedToken[] = [];
  let lastTime = 0;
  for (const tok of tokens) {
    if (vocab.isTimestamp(tok.id)) {
      const t = (tok.id - vocab.timestampBegin) * TS_STEP;
      if (start === null) start = t;
      else {
        if (text.length > 0) segments.push({ start, end: Math.max(t, start), tokens: text });
        text = [];
        start = null;
      }
      lastTime = t;
    } else if (vocab.isText(tok.id)) {
      if (start === null) start = lastTime;
      text.push(tok);
    }
  }
  if (text.length > 0) segments.push({ start: start ?? lastTime, end: Math.max(windowSeconds, start ?? 0), tokens: text });
  return segments;
}

/**
 * Gives each text token of a segment a time span, spreading the segment's span over the tokens by their
 * character length. Word alignment (cross-attention) refines these when words are requested.
 */
export function spreadTokenTimes(
  segment: TimedSegment,
  vocab: WhisperVocabulary,
  offsetMs: number,
): EngineToken[] {
  const texts = segment.tokens.map((t) => vocab.decode([t.id]));
  const weights = texts.map((t) => Math.max(1, t.trim().length));
  const total = weights.reduce((a, b) => a + b, 0);
  const startMs = offsetMs + segment.start * 1000;
  const spanMs = Math.max(0, (segment.end - segment.start) * 1000);
  let acc = 0;
  return segment.tokens.map((t, i) => {
    const s = startMs + (spanMs * acc) / total;
    acc += weights[i]!;
    const e = startMs + (spanMs * acc) / total;
    return { id: t.id, text: texts[i]!, startMs: s, endMs: e, probability: Math.exp(t.logprob) };
  });
}
