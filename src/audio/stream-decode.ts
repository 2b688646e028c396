import { ADTS, AudioSampleSink, BufferSource, FLAC, Input, MATROSKA, MP3, MP4, OGG, QTFF, WEBM, type AudioSample } from 'mediabunny';
import { ApiError } from '../api/errors';
import { checkAudioLength } from './limit';
import { AudioConsumerGone, type PcmSink } from './pcm-sink';
import { StreamResampler } from './stream-resample';

/**
 * Compressed audio decoded chunk by chunk: mediabunny demuxes the container into packets,
 * WebCodecs `AudioDecoder` (through mediabunny's AudioSampleSink, which keeps only a few decoded
 * chunks in flight) decodes them, and each chunk is downmixed and pushed through the streaming
 * resampler straight into the 16 kHz output. The output is the only full-length buffer; the
 * source-rate decode never exists whole (WebAudio's decodeAudioData holds all of it).
 */

/** The containers handed to mediabunny (WAV has its own reader; HLS and MPEG-TS are not accepted inputs). */
const FORMATS = [MP4, QTFF, WEBM, MATROSKA, OGG, MP3, ADTS, FLAC];

export interface StreamOptions {
  /** Longest audio accepted; more decoded than this throws the 413 of checkAudioLength. */
  maxSeconds: number;
  /** Names the file in the 413 detail, e.g. 'the MP3 file'. */
  what: string;
  /** Decoded frames to drop at the start, then to keep (integrity.ts Expectation.trim). */
  trim?: { skip: number; keep: number };
}

export interface Streamed {
  /** Seconds decoded, at the source rate (for the truncation check). */
  seconds: number;
}

/** Averages the planes of `sample` from frame `skip` on into `mono` (returned view). */
function downmix(sample: AudioSample, skip: number, frames: number, mono: Float32Array, plane: Float32Array): Float32Array {
  const out = mono.subarray(0, frames);
  const ch = sample.numberOfChannels;
  for (let c = 0; c < ch; c++) {
    const dest = c === 0 ? out : plane.subarray(0, frames);
    sample.copyTo(dest, { planeIndex: c, format: 'f32-planar', frameOffset: skip, frameCount: frames });
    if (c > 0) for (let i = 0; i < frames; i++) out[i]! += dest[i]!;
  }
  if (ch > 1) for (let i = 0; i < frames; i++) out[i]! /= ch;
  return out;
}

/**
 * Decodes `bytes` to `outRate` mono into `output`, waiting on it between packets. Resolves null when this path cannot: no AudioDecoder here, a
 * container or codec mediabunny or the decoder does not take, a decoder error, a change of sample
 * rate mid-stream, or nothing decoded; the caller then falls back to WebAudio (which also gives
 * the established error details for damaged files); what it appended is then `output`'s to forget.
 * Throws only the 413 of the length limit, and AudioConsumerGone when `output`'s reader has stopped.
 * Does not take ownership of `bytes`.
 */
export async function decodeStreamed(bytes: Uint8Array, outRate: number, options: StreamOptions, output: PcmSink): Promise<Streamed | null> {
  if (typeof AudioDecoder === 'undefined') return null;
  const input = new Input({ source: new BufferSource(bytes), formats: FORMATS });
  try {
    const track = await input.getPrimaryAudioTrack();
    if (!track || !(await track.canDecode())) return null;
    const before = output.size;
    let resampler: StreamResampler | undefined;
    let rate = 0;
    let frames = 0;
    /** Frames decoded after the negative-timestamp ones, counted against options.trim. */
    let position = 0;
    const { skip: trimSkip, keep: trimKeep } = options.trim ?? { skip: 0, keep: Infinity };
    let mono = new Float32Array(0);
    let plane = new Float32Array(0);
    for await (const sample of new AudioSampleSink(track).samples()) {
      try {
        if (!resampler) {
          rate = sample.sampleRate;
          resampler = new StreamResampler(rate, outRate, (block) => output.append(block));
        } else if (sample.sampleRate !== rate) return null;
        // Priming samples (an MP4 edit list, Opus pre-skip) come with negative timestamps: drop them.
        let skip = sample.timestamp < 0 ? Math.min(sample.numberOfFrames, Math.round(-sample.timestamp * rate)) : 0;
        const from = position;
        position += sample.numberOfFrames - skip;
        // The file's own trim (LAME delay and padding), in frames counted from `from`.
        skip += Math.max(0, Math.min(trimSkip, position) - from);
        const end = Math.min(sample.numberOfFrames, sample.numberOfFrames - (position - (trimSkip + trimKeep)));
        const n = end - skip;
        if (n <= 0) continue;
        if (mono.length < n) {
          mono = new Float32Array(n);
          plane = new Float32Array(n);
        }
        resampler.push(downmix(sample, skip, n, mono, plane));
        frames += n;
        checkAudioLength(frames / rate, options.maxSeconds, `decoding found that ${options.what} holds over`);
        await output.ready();
      } finally {
        sample.close();
      }
    }
    if (!resampler || frames === 0) return null;
    resampler.finish();
    if (output.size === before) return null;
    return { seconds: frames / rate };
  } catch (e) {
    if (e instanceof ApiError || e instanceof AudioConsumerGone) throw e;
    return null;
  } finally {
    input.dispose();
  }
}
