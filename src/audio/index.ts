import { ApiError, invalidAudio, invalidParam } from '../api/errors';
import { planarSource } from './downmix';
import { interleavedSource, BYTES_PER_SAMPLE, type SampleFormat } from './pcm';
import { resample } from './resample';
import { sniff } from './sniff';
import { parseWav } from './wav';
import { channelsOf, decodeWithWebAudio } from './webaudio';

/** The `encoding` values of the spec (section 4.3). */
export type AudioEncoding = 'auto' | 'm4a' | 'm4v' | 'mp4' | 'mov' | '3gp' | '3g2' | 'pcm_s16le' | 'mulaw' | 'alaw';

export const AUDIO_ENCODINGS: readonly AudioEncoding[] = [
  'auto', 'm4a', 'm4v', 'mp4', 'mov', '3gp', '3g2', 'pcm_s16le', 'mulaw', 'alaw',
];

export interface DecodeOptions {
  encoding: AudioEncoding;
  /** Only for the raw encodings. */
  sampleRate: number;
  /** Only for the raw encodings, 1..10. */
  channels: number;
}

/** The rate every decoded signal ends at (Whisper's). */
export const TARGET_RATE = 16000;

const RAW: Partial<Record<AudioEncoding, SampleFormat>> = { pcm_s16le: 's16', mulaw: 'mulaw', alaw: 'alaw' };

function decodeRaw(bytes: Uint8Array, format: SampleFormat, { sampleRate, channels }: DecodeOptions): Float32Array {
  if (!Number.isInteger(channels) || channels < 1 || channels > 10) {
    throw invalidParam(`channels must be an integer from 1 to 10, got ${channels}`);
  }
  if (!Number.isInteger(sampleRate) || sampleRate < 1000 || sampleRate > 384000) {
    throw invalidParam(`sample_rate must be an integer from 1000 to 384000, got ${sampleRate}`);
  }
  const frameBytes = BYTES_PER_SAMPLE[format] * channels;
  if (bytes.byteLength % frameBytes !== 0) {
    throw invalidAudio(
      `${bytes.byteLength} bytes do not divide into whole frames of ${frameBytes} bytes ` +
        `(${channels} channel${channels > 1 ? 's' : ''} × ${BYTES_PER_SAMPLE[format]} byte${frameBytes > 1 ? 's' : ''})`,
    );
  }
  return resample(interleavedSource(bytes, format, channels, sampleRate), TARGET_RATE);
}

function decodeWav(bytes: Uint8Array): Float32Array {
  const wav = parseWav(bytes);
  const data = bytes.subarray(wav.dataOffset, wav.dataOffset + wav.dataLength);
  return resample(interleavedSource(data, wav.format, wav.channels, wav.sampleRate), TARGET_RATE);
}

/**
 * Decodes a request body to 16 kHz mono Float32 samples in [-1, 1]. Main thread (compressed
 * containers need WebAudio). Takes ownership of `bytes`. Throws ApiError `invalid_audio` for
 * anything it cannot decode, with a detail naming the cause.
 */
export async function decodeAudio(bytes: ArrayBuffer, options: DecodeOptions): Promise<Float32Array> {
  const u8 = new Uint8Array(bytes);
  const raw = RAW[options.encoding];
  if (raw) return decodeRaw(u8, raw, options);
  if (u8.byteLength === 0) throw invalidAudio('the request body is empty');
  const found = sniff(u8);
  if (found.kind === 'known' && found.container === 'wav') return decodeWav(u8);
  try {
    const buffer = await decodeWithWebAudio(bytes, TARGET_RATE);
    return resample(planarSource(channelsOf(buffer), buffer.sampleRate), TARGET_RATE);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw invalidAudio(`the audio could not be decoded${found.kind !== 'unknown' ? ` (${found.label})` : ''}`);
  }
}
