import { SAMPLE_RATE } from '../../engine/protocol';
import { ApiError, invalidAudio, invalidParam } from '../api/errors';
import { planarSource } from './downmix';
import { checkAfterDecode, checkBeforeDecode } from './integrity';
import { checkAudioLength, DEFAULT_MAX_AUDIO_SECONDS } from './limit';
import { BYTES_PER_SAMPLE, type SampleFormat } from './pcm';
import { resample, resampledLength } from './resample';
import { sniff, type Sniffed } from './sniff';
import { decodeStreamed } from './stream-decode';
import { parseWav, type WavInfo } from './wav';
import { decodePcmSlices } from './pcm-slices';
import { appendAll, type PcmSink } from './pcm-sink';
import { SampleBuffer } from './sample-buffer';
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

async function decodeRaw(bytes: Uint8Array, format: SampleFormat, { sampleRate, channels, maxAudioSeconds }: DecodeOptions, output: PcmSink): Promise<void> {
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
  if (resampledLength(frames, sampleRate, TARGET_RATE) === 0) throw tooFewFrames('the body', frames, sampleRate);
  await decodePcmSlices((from, to) => bytes.subarray(from, to), { format, channels, sampleRate, dataLength: bytes.byteLength }, TARGET_RATE, output, 'the body');
}

/** The WAV checks shared by whole and sliced reading: samples present, and at least one output sample. */
function checkWavSamples(wav: WavInfo): void {
  if (wav.dataLength === 0) throw invalidAudio('the WAV file holds no samples (not one whole frame after its header)');
  const frames = wav.dataLength / (BYTES_PER_SAMPLE[wav.format] * wav.channels);
  if (resampledLength(frames, wav.sampleRate, TARGET_RATE) === 0) throw tooFewFrames('the WAV file', frames, wav.sampleRate);
}

async function decodeWav(bytes: Uint8Array, maxSeconds: number, output: PcmSink): Promise<void> {
  const wav = parseWav(bytes);
  checkWavSamples(wav);
  checkWavLength(wav, maxSeconds);
  const data = bytes.subarray(wav.dataOffset, wav.dataOffset + wav.dataLength);
  await decodePcmSlices((from, to) => data.subarray(from, to), wav, TARGET_RATE, output, 'the WAV file');
}

function checkWavLength(wav: WavInfo, maxSeconds: number): void {
  const frames = wav.dataLength / (BYTES_PER_SAMPLE[wav.format] * wav.channels);
  checkAudioLength(frames / wav.sampleRate, maxSeconds, 'the WAV file holds');
}

/**
 * Bodies up to this size are read whole even from a Blob (one path, the established one); above
 * it a WAV Blob is read slice by slice so the body never sits in memory (chosen by hand: 16 MiB is
 * under 3 minutes of 48 kHz stereo, nothing next to the 230 MB of an hour's output).
 */
const WHOLE_BLOB_BYTES = 16 << 20;
/** Head of a Blob read to find a WAV header (chunks before the samples must fit; else read whole). */
const WAV_HEAD_BYTES = 1 << 20;

/** A large WAV Blob decoded slice by slice; false for anything else (read whole by the caller). */
async function decodeWavBlobIfLarge(blob: Blob, options: DecodeOptions, maxSeconds: number, output: PcmSink): Promise<boolean> {
  if (options.encoding !== 'auto' || blob.size <= WHOLE_BLOB_BYTES) return false;
  const head = new Uint8Array(await blob.slice(0, WAV_HEAD_BYTES).arrayBuffer());
  const found = sniff(head);
  if (found.kind !== 'known' || found.container !== 'wav') return false;
  let wav: WavInfo;
  try {
    wav = parseWav(head, blob.size);
  } catch {
    return false; // Maybe a header longer than the head: the whole-body path decides.
  }
  checkWavSamples(wav);
  checkWavLength(wav, maxSeconds);
  const at = wav.dataOffset;
  await decodePcmSlices(async (from, to) => new Uint8Array(await blob.slice(at + from, at + to).arrayBuffer()), wav, TARGET_RATE, output, 'the WAV file');
  return true;
}

const tooFewFrames = (what: string, frames: number, rate: number) =>
  invalidAudio(`${what} holds only ${frames} frame${frames === 1 ? '' : 's'} at ${rate} Hz: less than one sample at ${TARGET_RATE} Hz`);

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
 * Decodes a request body to 16 kHz mono Float32 samples in [-1, 1] (decodeAudioTo, collected into one
 * array).
 */
export async function decodeAudio(body: ArrayBuffer | Blob, options: DecodeOptions): Promise<Float32Array> {
  const maxSeconds = options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS;
  // address space for the longest audio allowed; only the pages written are used (SampleBuffer)
  const output = new SampleBuffer(0, (maxSeconds + 1) * TARGET_RATE);
  await decodeAudioTo(body, options, output);
  return output.take();
}

/** The streaming decoder gave up after some of its samples had left through a sink that cannot take them back. */
export class DecodeRestart extends Error {
  constructor(what: string) {
    super(`the streaming decoder gave up on ${what} part way; decode it again with compressedDecoder 'webaudio'`);
    this.name = 'DecodeRestart';
  }
}

/**
 * Decodes a request body to 16 kHz mono Float32 samples in [-1, 1], appended to `output` as they are
 * decoded (waiting on it between blocks). Main thread (the WebAudio fallback for compressed containers
 * needs it). Takes ownership of an ArrayBuffer body. A large WAV Blob (a File, a fetched body) is read
 * in slices, so it never sits in memory whole. Throws ApiError `invalid_audio` for anything it cannot
 * decode, with a detail naming the cause; some of that is found only at the end (a truncated file), after
 * samples have been appended. Throws DecodeRestart when the streaming decoder gives up part way and
 * `output` cannot forget what it already passed on.
 *
 * An explicit container (m4a m4v mp4 mov 3gp 3g2) is a claim about the bytes: they are all
 * ISO-BMFF, so any member of that family is accepted for any of them, but a body that is another
 * format (say WAV sent as encoding=mp4) is rejected rather than silently decoded.
 */
export async function decodeAudioTo(body: ArrayBuffer | Blob, options: DecodeOptions, output: PcmSink): Promise<void> {
  const maxSeconds = options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS;
  if (body instanceof Blob && (await decodeWavBlobIfLarge(body, options, maxSeconds, output))) return;
  const bytes = body instanceof Blob ? await body.arrayBuffer() : body;
  const u8 = new Uint8Array(bytes);
  const raw = RAW[options.encoding];
  if (raw) return decodeRaw(u8, raw, options, output);
  if (u8.byteLength === 0) throw invalidAudio('the request body is empty');
  const found = sniff(u8);
  if (options.encoding !== 'auto') {
    if (found.kind !== 'known' || found.container !== 'mp4') {
      const what = found.kind === 'unknown' ? 'is not an MP4/MOV/3GP file' : `is ${found.label}, not an MP4/MOV/3GP file`;
      throw invalidAudio(`encoding=${options.encoding} was declared but the body ${what}; send encoding=auto to detect the format`);
    }
  }
  if (found.kind !== 'known') rejectUnrecognised(found, u8);
  if (found.container === 'wav') return decodeWav(u8, maxSeconds, output);

  const expected = checkBeforeDecode(found.container, u8);
  checkAudioLength(expected.lengthHint ?? expected.duration, maxSeconds, `the ${found.label} file declares`);
  if (options.compressedDecoder !== 'webaudio') {
    const streamed = await decodeStreamed(
      u8,
      TARGET_RATE,
      {
        maxSeconds,
        what: `the ${found.label} file`,
        ...(expected.trim && { trim: expected.trim }),
      },
      output,
    );
    if (streamed) {
      checkAfterDecode(expected, streamed.seconds);
      return;
    }
    if (options.compressedDecoder === 'stream-only') throw new Error(`the streaming decoder declined this ${found.label} file`);
    if (!output.reset()) throw new DecodeRestart(`the ${found.label} file`);
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
  await appendAll(output, await downmixAndResampleInPlace(buffer));
}
