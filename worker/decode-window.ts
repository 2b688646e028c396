import { seeded } from './seeded-random';
import type { EncodedWindow, GenerateOptions, Generation, WhisperModel } from './whisper';

/**
 * Temperatures tried in turn when a pass looks like a loop or has low confidence: OpenAI's schedule
 * thinned to three passes, since every retry costs a whole decoding pass.
 */
const TEMPERATURES = [0, 0.4, 0.8];
const MAX_COMPRESSION_RATIO = 2.4;
const MIN_AVG_LOGPROB = -1.0;
/** Above this no-speech probability, with low confidence, the window is treated as silence. */
export const NO_SPEECH_THRESHOLD = 0.6;

export type DecodeOptions = Omit<GenerateOptions, 'temperature' | 'random'>;

/**
 * Decodes one encoded window, retrying at higher temperatures while the result repeats itself
 * (gzip compression ratio) or is unlikely (average log-probability), and keeping the best pass.
 */
export async function decodeWindow(model: WhisperModel, encoded: EncodedWindow, opts: DecodeOptions): Promise<Generation> {
  const random = seeded(0x5eed);
  let best: Generation | null = null;
  for (const temperature of TEMPERATURES) {
    const gen = await model.generate(encoded, { ...opts, temperature, random });
    const text = model.vocab.decode(gen.tokens.map((t) => t.id));
    const ratio = await compressionRatio(text);
    if (!best || gen.avgLogprob > best.avgLogprob) best = gen;
    const silent = gen.noSpeechProb > NO_SPEECH_THRESHOLD && gen.avgLogprob < MIN_AVG_LOGPROB;
    if (silent || (ratio <= MAX_COMPRESSION_RATIO && gen.avgLogprob >= MIN_AVG_LOGPROB)) return gen;
  }
  return best!;
}

/** Whether a decoded window is silence rather than speech. */
export function isSilence(gen: Generation): boolean {
  return gen.tokens.length === 0 || (gen.noSpeechProb > NO_SPEECH_THRESHOLD && gen.avgLogprob < MIN_AVG_LOGPROB);
}

async function compressionRatio(text: string): Promise<number> {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length === 0) return 0;
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  const compressed = await new Response(stream).arrayBuffer();
  // gzip adds an 18-byte header and trailer that zlib (OpenAI's measure) does not
  return bytes.length / Math.max(1, compressed.byteLength - 12);
}
