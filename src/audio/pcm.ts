import { ALAW_TABLE, MULAW_TABLE } from './g711';
import type { MonoSource } from './source';

/** Interleaved sample encodings found in WAV files and raw bodies. */
export type SampleFormat = 'u8' | 's16' | 's24' | 's32' | 'f32' | 'f64' | 'alaw' | 'mulaw';

export const BYTES_PER_SAMPLE: Record<SampleFormat, number> = {
  u8: 1, s16: 2, s24: 3, s32: 4, f32: 4, f64: 8, alaw: 1, mulaw: 1,
};

type SampleReader = (view: DataView, offset: number) => number;

const READERS: Record<SampleFormat, SampleReader> = {
  u8: (v, o) => (v.getUint8(o) - 128) / 128,
  s16: (v, o) => v.getInt16(o, true) / 32768,
  s24: (v, o) => ((v.getUint8(o) | (v.getUint8(o + 1) << 8) | (v.getInt8(o + 2) << 16)) / 8388608),
  s32: (v, o) => v.getInt32(o, true) / 2147483648,
  f32: (v, o) => v.getFloat32(o, true),
  f64: (v, o) => v.getFloat64(o, true),
  alaw: (v, o) => ALAW_TABLE[v.getUint8(o)]!,
  mulaw: (v, o) => MULAW_TABLE[v.getUint8(o)]!,
};

/**
 * Interleaved little-endian samples (`data` holds whole frames only) read as a mono source,
 * decoding and averaging channels on the fly.
 */
export function interleavedSource(
  data: Uint8Array,
  format: SampleFormat,
  channels: number,
  sampleRate: number,
): MonoSource {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const width = BYTES_PER_SAMPLE[format];
  const frameBytes = width * channels;
  const length = Math.floor(data.byteLength / frameBytes);
  const readSample = READERS[format];
  const gain = 1 / channels;
  return {
    length,
    sampleRate,
    read(start, dest) {
      let o = start * frameBytes;
      if (channels === 1) {
        for (let i = 0; i < dest.length; i++, o += width) dest[i] = readSample(view, o);
        return;
      }
      for (let i = 0; i < dest.length; i++) {
        let sum = 0;
        for (let c = 0; c < channels; c++, o += width) sum += readSample(view, o);
        dest[i] = sum * gain;
      }
    },
  };
}
