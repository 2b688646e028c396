import { seeded } from './seeded-random';
import type { EncodedWindow, WhisperModel } from '../whisper/model';
import type { GenerateOptions, Generation } from '../whisper/generate';

/**
 * Temperatures tried in turn when a pass looks like a loop or has low confidence (OpenAI's schedule).
 * A looping pass is cut short as soon as the loop shows (repeatsTail in whisper.ts), so retries stay cheap.
 */
const TEMPERATURES = [0, 0.2, 0.4, 0.6, 0.8, 1.0];
const MAX_COMPRESSION_RATIO = 2.4;
const MIN_AVG_LOGPROB = -1.0;
/** Above this no-speech probability, with low confidence, the window is treated as silence. */
export const NO_SPEECH_THRESHOLD = 0.6;

export interface DecodeOptions extends Omit<GenerateOptions, 'temperature' | 'random'> {
  /**
   * false: the temperature-0 pass only, whatever its quality, for a caller with a better fallback
   * (engine/pipeline.ts decodes a fitted window that fails the checks on the full 30 s window instead).
   */
  fallback?: boolean;
}

/**
 * Decodes one encoded window, retrying at higher temperatures while the result repeats itself
 * (gzip compression ratio) or is unlikely (average log-probability). When every pass fails, the likeliest
 * pass that does not repeat itself wins, else the last one: a confident loop is still a loop.
 */
export async function decodeWindow(model: WhisperModel, encoded: EncodedWindow, opts: DecodeOptions): Promise<Generation> {
  const random = seeded(0x5eed);
  let best: Generation | null = null;
  let last: Generation | null = null;
  // every retry begins with the same prompt
  const start = await model.promptRun(encoded, opts);
  try {
    for (const temperature of opts.fallback === false ? [0] : TEMPERATURES) {
      const gen = await model.generate(encoded, { ...opts, temperature, random }, start);
      const check = await checked(model, gen);
      if (check.accepted) return gen;
      if (!check.repeats && (!best || gen.avgLogprob > best.avgLogprob)) best = gen;
      last = gen;
    }
  } finally {
    start.release();
  }
  return best ?? last!;
}

/** Whether a pass passes Whisper's checks: silence, or text that neither repeats itself nor is unlikely. */
export async function passesChecks(model: WhisperModel, gen: Generation): Promise<boolean> {
  return (await checked(model, gen)).accepted;
}

async function checked(model: WhisperModel, gen: Generation): Promise<{ accepted: boolean; repeats: boolean }> {
  const text = model.vocab.decode(gen.tokens.map((t) => t.id));
  const repeats = gen.looped || (await compressionRatio(text)) > MAX_COMPRESSION_RATIO;
  return { accepted: heardSilence(gen) || (!repeats && gen.avgLogprob >= MIN_AVG_LOGPROB), repeats };
}

/** Whether a decoded window is silence rather than speech. */
export function isSilence(gen: Generation): boolean {
  return gen.tokens.length === 0 || heardSilence(gen);
}

/** Whisper's no-speech rule: the model thinks the window silent and is unsure of what it wrote. */
function heardSilence(gen: Generation): boolean {
  return gen.noSpeechProb > NO_SPEECH_THRESHOLD && gen.avgLogprob < MIN_AVG_LOGPROB;
}

async function compressionRatio(text: string): Promise<number> {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length === 0) return 0;
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  const compressed = await new Response(stream).arrayBuffer();
  // gzip adds an 18-byte header and trailer that zlib (OpenAI's measure) does not
  return bytes.length / Math.max(1, compressed.byteLength - 12);
}
