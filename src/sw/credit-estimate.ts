import type { TranscriptionParams } from '../api/params';
import { checkBeforeDecode } from '../audio/integrity';
import { BYTES_PER_SAMPLE } from '../audio/pcm';
import { riffFlavour } from '../audio/riff';
import { parseWav } from '../audio/wav';
import { sniff } from '../audio/sniff';

/**
 * How many audio seconds a /v1 body holds, read before any decoding so its credit can be reserved
 * first. `firm`: read from the raw format's byte count, a WAV header or the container's declared
 * length; otherwise an upper-bound guess from the byte count (see FLOOR_BYTES_PER_SECOND).
 * Damaged bodies are not judged here: the engine page answers those with invalid_audio.
 */
export interface AudioLength {
  seconds: number;
  firm: boolean;
}

/**
 * Bytes per second assumed for a compressed body whose length is not declared: below the lowest
 * bitrate among ../shared/dev's compressed clips (1,777 B/s, a FLEURS Ogg/Opus clip), so the guess
 * is rarely short of the real length.
 */
export const FLOOR_BYTES_PER_SECOND = 1600;

const RAW_BYTES_PER_SAMPLE: Partial<Record<TranscriptionParams['encoding'], number>> = { pcm_s16le: 2, mulaw: 1, alaw: 1 };

export function audioLengthOf(body: ArrayBuffer, params: TranscriptionParams): AudioLength {
  const bytes = new Uint8Array(body);
  const width = RAW_BYTES_PER_SAMPLE[params.encoding];
  if (width !== undefined) return { seconds: bytes.length / (params.sample_rate * params.channels * width), firm: true };
  try {
    const declared = declaredSeconds(bytes);
    if (declared > 0) return { seconds: declared, firm: true };
  } catch {
    // a damaged header: judged by the page
  }
  return { seconds: bytes.length / FLOOR_BYTES_PER_SECOND, firm: false };
}

function declaredSeconds(bytes: Uint8Array): number {
  if (riffFlavour(bytes)) return wavSeconds(bytes);
  const found = sniff(bytes);
  if (found.kind !== 'known') return 0;
  const expected = checkBeforeDecode(found.container, bytes);
  return expected.lengthHint ?? expected.duration;
}

/**
 * Seconds of whole frames, from the header as the decoder reads it (parseWav), so that a field it
 * ignores, such as a damaged byte rate, cannot set what is charged; a header it refuses throws.
 */
function wavSeconds(bytes: Uint8Array): number {
  const wav = parseWav(bytes);
  return wav.dataLength / (BYTES_PER_SAMPLE[wav.format] * wav.channels) / wav.sampleRate;
}
