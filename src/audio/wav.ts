import { invalidAudio } from '../api/errors';
import type { SampleFormat } from './pcm';
import { riffChunks, riffFlavour } from './riff';

/** Where the samples of a RIFF/WAVE file are, and how they are encoded. */
export interface WavInfo {
  format: SampleFormat;
  channels: number;
  sampleRate: number;
  /** Byte range of whole frames inside the file. */
  dataOffset: number;
  dataLength: number;
}

/** Sample rates accepted; beyond them a header is damaged, and resampling would cost unbounded time. */
export const MIN_RATE = 1000;
export const MAX_RATE = 768000;

const WAVE_FORMAT_PCM = 0x0001;
const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
const WAVE_FORMAT_ALAW = 0x0006;
const WAVE_FORMAT_MULAW = 0x0007;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

const KNOWN_UNSUPPORTED: Record<number, string> = {
  0x0002: 'Microsoft ADPCM',
  0x0011: 'IMA ADPCM',
  0x0022: 'TrueSpeech',
  0x0031: 'GSM 6.10',
  0x0040: 'G.721 ADPCM',
  0x0050: 'MPEG audio',
  0x0055: 'MP3',
  0x00ff: 'AAC',
  0x0161: 'Windows Media Audio',
};

function sampleFormat(tag: number, bits: number): SampleFormat {
  if (tag === WAVE_FORMAT_PCM) {
    const f = ({ 8: 'u8', 16: 's16', 24: 's24', 32: 's32' } as const)[bits as 8 | 16 | 24 | 32];
    if (f) return f;
    throw invalidAudio(`WAV integer PCM with ${bits} bits per sample is not supported (8, 16, 24 or 32 are)`);
  }
  if (tag === WAVE_FORMAT_IEEE_FLOAT) {
    if (bits === 32) return 'f32';
    if (bits === 64) return 'f64';
    throw invalidAudio(`WAV floating-point audio with ${bits} bits per sample is not supported (32 or 64 are)`);
  }
  if (tag === WAVE_FORMAT_ALAW || tag === WAVE_FORMAT_MULAW) {
    if (bits !== 8) throw invalidAudio(`WAV G.711 audio must have 8 bits per sample, not ${bits}`);
    return tag === WAVE_FORMAT_ALAW ? 'alaw' : 'mulaw';
  }
  const name = KNOWN_UNSUPPORTED[tag];
  const hex = `0x${tag.toString(16).padStart(4, '0')}`;
  throw invalidAudio(`WAV codec ${hex}${name ? ` (${name})` : ''} is not supported; send PCM, float, A-law or μ-law WAV, or another container`);
}

/**
 * Parses the header of a WAV-family file (RIFF/WAVE, RF64/BW64, Sony Wave64): PCM 8/16/24/32-bit,
 * IEEE float 32/64-bit, A-law, μ-law, each also wrapped in WAVE_FORMAT_EXTENSIBLE.
 *
 * Reads what ffmpeg and sox read: a data chunk whose size is a streaming writer's placeholder
 * (0, 0xFFFFFFFF, sox's 0x7FFFF000, 0x7FFF0000) or simply larger than the body runs to the end of
 * the body, and a trailing partial frame is dropped. The RIFF size is not consulted (ffmpeg
 * ignores it too). Damage that leaves nothing to decode is invalid_audio: a header cut short, no
 * fmt or data chunk, or no whole frame of samples.
 *
 * `bytes` may be only the head of a file of `totalLength` bytes (a Blob read in slices): the
 * chunks before the samples must lie in it, and the data chunk then runs to the end of the file.
 */
export function parseWav(bytes: Uint8Array, totalLength = bytes.byteLength): WavInfo {
  const flavour = riffFlavour(bytes);
  if (!flavour) throw invalidAudio('not a RIFF/WAVE, RF64 or Wave64 file');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fmt: { tag: number; channels: number; sampleRate: number; blockAlign: number; bits: number } | undefined;
  for (const { id, body, size, placeholder } of riffChunks(bytes, flavour)) {
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.byteLength) throw invalidAudio('WAV fmt chunk is too short (file truncated?)');
      let tag = v.getUint16(body, true);
      if (tag === WAVE_FORMAT_EXTENSIBLE) {
        if (size < 40 || body + 40 > bytes.byteLength) throw invalidAudio('WAVE_FORMAT_EXTENSIBLE fmt chunk is too short');
        // The SubFormat GUID starts with the format tag it stands for.
        tag = v.getUint16(body + 24, true);
      }
      fmt = {
        tag,
        channels: v.getUint16(body + 2, true),
        sampleRate: v.getUint32(body + 4, true),
        blockAlign: v.getUint16(body + 12, true),
        bits: v.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!fmt) throw invalidAudio('WAV data chunk comes before any fmt chunk');
      const format = sampleFormat(fmt.tag, fmt.bits);
      if (fmt.channels < 1) throw invalidAudio('WAV header declares 0 channels');
      if (fmt.sampleRate < MIN_RATE || fmt.sampleRate > MAX_RATE) {
        throw invalidAudio(`WAV header declares a sample rate of ${fmt.sampleRate} Hz (accepted: ${MIN_RATE} to ${MAX_RATE})`);
      }
      const frameBytes = (fmt.bits / 8) * fmt.channels;
      if (fmt.blockAlign !== frameBytes) {
        throw invalidAudio(`WAV block align ${fmt.blockAlign} does not match ${fmt.channels} channels of ${fmt.bits} bits`);
      }
      const available = Math.max(0, totalLength - body);
      const length = placeholder || size > available ? available : size;
      return {
        format,
        channels: fmt.channels,
        sampleRate: fmt.sampleRate,
        dataOffset: body,
        dataLength: length - (length % frameBytes),
      };
    }
  }
  throw invalidAudio(fmt ? 'WAV file has no data chunk (file truncated?)' : 'WAV file has no fmt chunk (file truncated?)');
}
