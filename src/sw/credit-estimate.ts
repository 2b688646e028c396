import type { TranscriptionParams } from '../api/params';
import { checkBeforeDecode } from '../audio/integrity';
import { riffChunks, riffFlavour } from '../audio/riff';
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
  const wav = riffFlavour(bytes);
  if (wav) return wavSeconds(bytes, wav);
  const found = sniff(bytes);
  if (found.kind !== 'known') return 0;
  const expected = checkBeforeDecode(found.container, bytes);
  return expected.lengthHint ?? expected.duration;
}

/**
 * The data chunk's bytes that are present (streamed files declare placeholders) over the format's byte
 * rate, from its channels, sample rate and sample size as the decoder reads them: the header's own
 * byte-rate field is not read by the decoder, so a damaged one must not set what is charged.
 */
function wavSeconds(bytes: Uint8Array, flavour: Parameters<typeof riffChunks>[1]): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let byteRate = 0;
  for (const chunk of riffChunks(bytes, flavour)) {
    if (chunk.id === 'fmt ' && chunk.body + 16 <= bytes.length) {
      const channels = view.getUint16(chunk.body + 2, true);
      const bits = view.getUint16(chunk.body + 14, true);
      byteRate = channels * view.getUint32(chunk.body + 4, true) * Math.ceil(bits / 8);
    }
    if (chunk.id === 'data') {
      const present = bytes.length - chunk.body;
      const size = chunk.placeholder ? present : Math.min(chunk.size, present);
      return byteRate > 0 ? size / byteRate : 0;
    }
  }
  return 0;
}
