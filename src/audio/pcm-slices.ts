import { BYTES_PER_SAMPLE, interleavedSource, type SampleFormat } from './pcm';
import type { PcmSink } from './pcm-sink';
import { StreamResampler } from './stream-resample';
import { finiteSource } from './finite';

/**
 * Bytes read at a time. 4 MiB: large enough that slicing costs nothing next to decoding, small next
 * to an hour of audio (chosen by hand, not measured).
 */
const SLICE_BYTES = 4 << 20;

/** Interleaved PCM samples: their encoding, and how many bytes of them there are. */
export interface PcmLayout {
  format: SampleFormat;
  channels: number;
  sampleRate: number;
  dataLength: number;
}

/**
 * PCM samples (WAV data or a raw body) read slice by slice, `read(start, end)` giving bytes
 * [start, end) of the data, downmixed and resampled into `output` as they come; floating-point NaN
 * or infinity is invalid_audio naming `what`. Waits for `output` between slices.
 */
export async function decodePcmSlices(
  read: (start: number, end: number) => Uint8Array | Promise<Uint8Array>,
  layout: PcmLayout,
  outRate: number,
  output: PcmSink,
  what: string,
): Promise<void> {
  const frameBytes = BYTES_PER_SAMPLE[layout.format] * layout.channels;
  const resampler = new StreamResampler(layout.sampleRate, outRate, (block) => output.append(block));
  const floating = layout.format === 'f32' || layout.format === 'f64';
  const step = Math.max(frameBytes, SLICE_BYTES - (SLICE_BYTES % frameBytes));
  let mono = new Float32Array(0);
  for (let at = 0; at < layout.dataLength; at += step) {
    await output.ready();
    const bytes = await read(at, at + Math.min(step, layout.dataLength - at));
    let source = interleavedSource(bytes, layout.format, layout.channels, layout.sampleRate);
    if (floating) source = finiteSource(source, what, at / frameBytes);
    if (mono.length < source.length) mono = new Float32Array(source.length);
    const block = mono.subarray(0, source.length);
    source.read(0, block);
    resampler.push(block);
  }
  resampler.finish();
}
