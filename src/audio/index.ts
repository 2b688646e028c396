import { SAMPLE_RATE } from '../../engine/protocol';
import { ApiError, invalidAudio, invalidParam } from '../api/errors';
import { planarSource } from './downmix';
import { finiteSource } from './finite';
import { checkAfterDecode, checkBeforeDecode } from './integrity';
import { checkAudioLength, DEFAULT_MAX_AUDIO_SECONDS } from './limit';
import { interleavedSource, BYTES_PER_SAMPLE, type SampleFormat } from './pcm';
import { resample, resampledLength } from './resample';
import type { MonoSource } from './source';
import { sniff, type Sniffed } from './sniff';
import { decodeStreamed } from './stream-decode';
import { parseWav, type WavInfo } from './wav';
import { decodeWavBlob } from './wav-blob';
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
  /**
   * Longest audio accepted (default DEFAULT_MAX_AUDIO_SECONDS); longer is 413. Checked from the
   * header or byte count before anything is decoded or resampled where the format allows.
   */
  maxAudioSeconds?: number;
  /**
   * How compressed formats are decoded: 'stream' (the default) in chunks with WebCodecs, falling
   * back to WebAudio where that cannot; 'webaudio' always whole with decodeAudioData; 'stream-only'
   * never falls back (throws where the streaming path declines). The last two are for comparisons
   * and memory measurements (src/audio/README.md "Memory").
   */
  compressedDecoder?: 'stream' | 'webaudio' | 'stream-only';
}

export { DEFAULT_MAX_AUDIO_SECONDS } from './limit';

/** The rate every decoded signal ends at: the engine's (Whisper's). */
export const TARGET_RATE = SAMPLE_RATE;
/**
 * Rate WebAudio decodes compressed formats to. Chromium's own resampler, asked for 16 kHz directly,
 * loses 3 dB at 6.5 kHz (test/browser/audio-resampler.test.ts); at 32 kHz its roll-off lies above
 * 8 kHz and anything it folds back lands above 8 kHz too, where our resampler's stopband removes it.
 * It also holds less than the native rate (often 44.1 or 48 kHz) would.
 */
const WEBAUDIO_RATE = 32000;

const RAW: Partial<Record<AudioEncoding, SampleFormat>> = { pcm_s16le: 's16', mulaw: 'mulaw', alaw: 'alaw' };

const AUTO_LIST = 'WAV (also RF64 and Wave64), FLAC, MP3, Ogg (Opus, Vorbis), WebM/Matroska, MP4/M4A/MOV/3GP and ADTS AAC';

async function decodeRaw(bytes: Uint8Array, format: SampleFormat, { sampleRate, channels, maxAudioSeconds }: DecodeOptions): Promise<Float32Array> {
  if (!Number.isInteger(channels) || channels < 1 || channels > 10) {
    throw invalidParam(`channels must be an integer from 1 to 10, got ${channels}`);
  }
  if (!Number.isInteger(sampleRate) || sampleRate < 1000 || sampleRate > 384000) {
    throw invalidParam(`sample_rate must be an integer from 1000 to 384000, got ${sampleRate}`);
  }
  if (bytes.byteLength === 0) throw invalidAudio('the request body is empty');
  const width = BYTES_PER_SAMPLE[format];
  const frameBytes = width * channels;
  if (bytes.byteLength % frameBytes !== 0) {
    throw invalidAudio(
      `${bytes.byteLength} bytes do not divide into whole frames of ${frameBytes} bytes ` +
        `(${channels} channel${channels > 1 ? 's' : ''} of ${width} byte${width > 1 ? 's' : ''})`,
    );
  }
  // Before resampling: a long body at a low declared rate would otherwise grow many times over.
  const frames = bytes.byteLength / frameBytes;
  checkAudioLength(frames / sampleRate, maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS, `${bytes.byteLength} bytes at ${sampleRate} Hz last`);
  return await resampleSome(interleavedSource(bytes, format, channels, sampleRate), 'the body');
}

/** The WAV checks shared by whole and sliced reading: samples present, and at least one output sample. */
function checkWavSamples(wav: WavInfo): void {
  if (wav.dataLength === 0) throw invalidAudio('the WAV file holds no samples (not one whole frame after its header)');
  const frames = wav.dataLength / (BYTES_PER_SAMPLE[wav.format] * wav.channels);
  if (resampledLength(frames, wav.sampleRate, TARGET_RATE) === 0) throw tooFewFrames('the WAV file', frames, wav.sampleRate);
}

async function decodeWav(bytes: Uint8Array, maxSeconds: number): Promise<Float32Array> {
  const wav = parseWav(bytes);
  checkWavSamples(wav);
  const data = bytes.subarray(wav.dataOffset, wav.dataOffset + wav.dataLength);
  const source = interleavedSource(data, wav.format, wav.channels, wav.sampleRate);
  checkAudioLength(source.length / wav.sampleRate, maxSeconds, 'the WAV file holds');
  const floating = wav.format === 'f32' || wav.format === 'f64';
  return await resampleSome(floating ? finiteSource(source, 'the WAV file') : source, 'the WAV file');
}

/**
 * Bodies up to this size are read whole even from a Blob (one path, the established one); above
 * it a WAV Blob is read slice by slice so the body never sits in memory (chosen by hand: 16 MiB is
 * under 3 minutes of 48 kHz stereo, nothing next to the 230 MB of an hour's output).
 */
const WHOLE_BLOB_BYTES = 16 << 20;
/** Head of a Blob read to find a WAV header (chunks before the samples must fit; else read whole). */
const WAV_HEAD_BYTES = 1 << 20;

/** A large WAV Blob decoded slice by slice; null for anything else (read whole by the caller). */
async function decodeWavBlobIfLarge(blob: Blob, options: DecodeOptions, maxSeconds: number): Promise<Float32Array | null> {
  if (options.encoding !== 'auto' || blob.size <= WHOLE_BLOB_BYTES) return null;
  const head = new Uint8Array(await blob.slice(0, WAV_HEAD_BYTES).arrayBuffer());
  const found = sniff(head);
  if (found.kind !== 'known' || found.container !== 'wav') return null;
  let wav: WavInfo;
  try {
    wav = parseWav(head, blob.size);
  } catch {
    return null; // Maybe a header longer than the head: the whole-body path decides.
  }
  checkWavSamples(wav);
  return decodeWavBlob(blob, wav, TARGET_RATE, maxSeconds);
}

const tooFewFrames = (what: string, frames: number, rate: number) =>
  invalidAudio(`${what} holds only ${frames} frame${frames === 1 ? '' : 's'} at ${rate} Hz: less than one sample at ${TARGET_RATE} Hz`);

/** Resamples to TARGET_RATE; a few frames that make not one output sample are invalid_audio, not an empty result. */
async function resampleSome(source: MonoSource, what: string): Promise<Float32Array> {
  if (resampledLength(source.length, source.sampleRate, TARGET_RATE) === 0) throw tooFewFrames(what, source.length, source.sampleRate);
  return await resample(source, TARGET_RATE);
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
}

function rejectUnrecognised(found: Sniffed, bytes: Uint8Array): never {
  if (found.kind === 'unsupported') throw invalidAudio(`${found.label} is not a supported format; encoding=auto recognises ${AUTO_LIST}`);
  throw invalidAudio(`unrecognised audio format (first bytes ${hex(bytes)}); encoding=auto recognises ${AUTO_LIST}`);
}

/**
 * The decoded channels are the one full-length copy: average them into channel 0, resample channel
 * 0 onto itself, then keep only the first part of its buffer (ArrayBuffer.prototype.transfer,
 * where it exists; a view otherwise). Nothing else of hour-long size is allocated.
 */
async function downmixAndResampleInPlace(buffer: AudioBuffer): Promise<Float32Array> {
  const channels = channelsOf(buffer);
  const mono = channels[0]!;
  if (channels.length > 1) planarSource(channels, buffer.sampleRate).read(0, mono);
  const out = await resample(planarSource([mono], buffer.sampleRate), TARGET_RATE, { into: mono });
  const backing = mono.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  if (out.byteOffset === 0 && typeof backing.transfer === 'function') {
    try {
      return new Float32Array(backing.transfer(out.byteLength));
    } catch {
      // A non-detachable buffer: fall through to the view.
    }
  }
  return out;
}

/**
 * Decodes a request body to 16 kHz mono Float32 samples in [-1, 1]. Main thread (the WebAudio
 * fallback for compressed containers needs it). Takes ownership of an ArrayBuffer body. A large WAV
 * Blob (a File, a fetched body) is read in slices, so it never sits in memory whole. Throws ApiError `invalid_audio` for
 * anything it cannot decode, with a detail naming the cause.
 *
 * An explicit container (m4a m4v mp4 mov 3gp 3g2) is a claim about the bytes: they are all
 * ISO-BMFF, so any member of that family is accepted for any of them, but a body that is another
 * format (say WAV sent as encoding=mp4) is rejected rather than silently decoded.
 */
export async function decodeAudio(body: ArrayBuffer | Blob, options: DecodeOptions): Promise<Float32Array> {
  const maxSeconds = options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS;
  if (body instanceof Blob) {
    const sliced = await decodeWavBlobIfLarge(body, options, maxSeconds);
    if (sliced) return sliced;
  }
  const bytes = body instanceof Blob ? await body.arrayBuffer() : body;
  const u8 = new Uint8Array(bytes);
  const raw = RAW[options.encoding];
  if (raw) return decodeRaw(u8, raw, options);
  if (u8.byteLength === 0) throw invalidAudio('the request body is empty');
  const found = sniff(u8);
  if (options.encoding !== 'auto') {
    if (found.kind !== 'known' || found.container !== 'mp4') {
      const what = found.kind === 'unknown' ? 'is not an MP4/MOV/3GP file' : `is ${found.label}, not an MP4/MOV/3GP file`;
      throw invalidAudio(`encoding=${options.encoding} was declared but the body ${what}; send encoding=auto to detect the format`);
    }
  }
  if (found.kind !== 'known') rejectUnrecognised(found, u8);
  if (found.container === 'wav') return decodeWav(u8, maxSeconds);

  const expected = checkBeforeDecode(found.container, u8);
  checkAudioLength(expected.lengthHint ?? expected.duration, maxSeconds, `the ${found.label} file declares`);
  if (options.compressedDecoder !== 'webaudio') {
    const streamed = await decodeStreamed(u8, TARGET_RATE, {
      maxSeconds,
      what: `the ${found.label} file`,
      expectedSeconds: expected.lengthHint ?? expected.duration,
      ...(expected.trim && { trim: expected.trim }),
    });
    if (streamed) {
      checkAfterDecode(expected, streamed.seconds);
      return streamed.samples;
    }
    if (options.compressedDecoder === 'stream-only') throw new Error(`the streaming decoder declined this ${found.label} file`);
  }
  let buffer: AudioBuffer;
  try {
    buffer = await decodeWithWebAudio(bytes, WEBAUDIO_RATE);
  } catch (e) {
    // decodeAudioData rejects with an EncodingError DOMException; anything else is not the input's fault.
    if (e instanceof ApiError || !(e instanceof DOMException)) throw e;
    const codec = expected.codec ? ` with audio codec '${expected.codec}'` : '';
    throw invalidAudio(`the ${found.label} data${codec} could not be decoded (corrupt, truncated, or an unsupported codec)`);
  }
  if (buffer.length === 0) throw invalidAudio(`the ${found.label} file holds no audio`);
  // Before resampling, the last point where the limit can stop the work (WebAudio decodes whole files).
  checkAudioLength(buffer.duration, maxSeconds, `the ${found.label} file holds`);
  checkAfterDecode(expected, buffer.duration);
  return downmixAndResampleInPlace(buffer);
}
