import { checkAudioLength } from './limit';
import { BYTES_PER_SAMPLE, interleavedSource } from './pcm';
import { resampledLength } from './resample';
import { SampleBuffer } from './sample-buffer';
import { StreamResampler } from './stream-resample';
import { finiteSource } from './finite';
import type { WavInfo } from './wav';

/**
 * Bytes read from the Blob at a time. 4 MiB: large enough that slicing costs nothing next to
 * decoding, small next to an hour of audio (chosen by hand, not measured).
 */
const SLICE_BYTES = 4 << 20;

/** The WAV samples described by `wav`, read from `blob` slice by slice and resampled as they come. */
export async function decodeWavBlob(blob: Blob, wav: WavInfo, outRate: number, maxSeconds: number): Promise<Float32Array> {
  const frameBytes = BYTES_PER_SAMPLE[wav.format] * wav.channels;
  const frames = wav.dataLength / frameBytes;
  checkAudioLength(frames / wav.sampleRate, maxSeconds, 'the WAV file holds');
  const output = new SampleBuffer(resampledLength(frames, wav.sampleRate, outRate));
  const resampler = new StreamResampler(wav.sampleRate, outRate, (block) => output.append(block));
  const floating = wav.format === 'f32' || wav.format === 'f64';
  const step = Math.max(frameBytes, SLICE_BYTES - (SLICE_BYTES % frameBytes));
  let mono = new Float32Array(0);
  for (let at = 0; at < wav.dataLength; at += step) {
    const start = wav.dataOffset + at;
    const bytes = new Uint8Array(await blob.slice(start, start + Math.min(step, wav.dataLength - at)).arrayBuffer());
    let source = interleavedSource(bytes, wav.format, wav.channels, wav.sampleRate);
    if (floating) source = finiteSource(source, 'the WAV file', at / frameBytes);
    if (mono.length < source.length) mono = new Float32Array(source.length);
    const block = mono.subarray(0, source.length);
    source.read(0, block);
    resampler.push(block);
  }
  resampler.finish();
  return output.take();
}
