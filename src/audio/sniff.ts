import { riffFlavour, type RiffFlavour } from './riff';

/**
 * Container detection from the first bytes only (never a name or a MIME type).
 * Recognised: WAV (also RF64/BW64 and Wave64), FLAC, MP3 (with or without ID3v2), Ogg,
 * WebM/Matroska, the ISO-BMFF family (MP4, M4A, M4V, MOV, 3GP, 3G2) and ADTS AAC. A few other
 * formats are recognised only to name them in the error.
 */
export type Container = 'wav' | 'flac' | 'mp3' | 'ogg' | 'matroska' | 'mp4' | 'aac';

export type Sniffed =
  | { kind: 'known'; container: Container; label: string }
  | { kind: 'unsupported'; label: string }
  | { kind: 'unknown' };

const ascii = (b: Uint8Array, o: number, n: number) => {
  let s = '';
  for (let i = o; i < o + n && i < b.length; i++) s += String.fromCharCode(b[i]!);
  return s;
};

/** Bytes of an ID3v2 tag at `o` (0 if none). */
export function id3Length(b: Uint8Array, o: number): number {
  if (b.length < o + 10 || ascii(b, o, 3) !== 'ID3') return 0;
  const size = ((b[o + 6]! & 0x7f) << 21) | ((b[o + 7]! & 0x7f) << 14) | ((b[o + 8]! & 0x7f) << 7) | (b[o + 9]! & 0x7f);
  const footer = b[o + 5]! & 0x10 ? 10 : 0;
  return 10 + size + footer;
}

// kbit/s by [version is MPEG-1][layer 1..3][index]
const BITRATES: Record<string, number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG_RATES = [44100, 48000, 32000];

export interface MpegHeader {
  /** Frame length in bytes. */
  bytes: number;
  /** Header bits that stay the same from frame to frame in one stream. */
  key: number;
  mpeg1: boolean;
  layer: number;
  mono: boolean;
  sampleRate: number;
  samplesPerFrame: number;
}

/** Length of the MPEG audio frame whose header is at `o`, or undefined if none is there. */
export function mpegFrame(b: Uint8Array, o: number): MpegHeader | undefined {
  if (o + 4 > b.length || b[o] !== 0xff || (b[o + 1]! & 0xe0) !== 0xe0) return undefined;
  const version = (b[o + 1]! >> 3) & 3; // 0: 2.5, 1: reserved, 2: 2, 3: 1
  const layerBits = (b[o + 1]! >> 1) & 3; // 1: III, 2: II, 3: I
  const brIndex = b[o + 2]! >> 4;
  const srIndex = (b[o + 2]! >> 2) & 3;
  if (version === 1 || layerBits === 0 || brIndex === 0 || brIndex === 15 || srIndex === 3) return undefined;
  const layer = 4 - layerBits;
  const mpeg1 = version === 3;
  const table = BITRATES[mpeg1 ? `1-${layer}` : `2-${layer === 1 ? 1 : 2}`]!;
  const bitrate = table[brIndex]! * 1000;
  const rate = MPEG_RATES[srIndex]! / (version === 3 ? 1 : version === 2 ? 2 : 4);
  const pad = (b[o + 2]! >> 1) & 1;
  const bytes =
    layer === 1
      ? (Math.floor((12 * bitrate) / rate) + pad) * 4
      : Math.floor(((layer === 3 && !mpeg1 ? 72 : 144) * bitrate) / rate) + pad;
  return {
    bytes,
    key: (b[o + 1]! & 0xfe) * 256 + (b[o + 2]! & 0x0c),
    mpeg1,
    layer,
    mono: b[o + 3]! >> 6 === 3,
    sampleRate: rate,
    samplesPerFrame: layer === 1 ? 384 : layer === 3 && !mpeg1 ? 576 : 1152,
  };
}

/** Length of the ADTS frame whose header is at `o`, or undefined. */
function adtsFrame(b: Uint8Array, o: number): number | undefined {
  if (o + 7 > b.length || b[o] !== 0xff || (b[o + 1]! & 0xf6) !== 0xf0) return undefined;
  if (((b[o + 2]! >> 2) & 0x0f) > 12) return undefined; // sampling frequency index
  const len = ((b[o + 3]! & 0x03) << 11) | (b[o + 4]! << 3) | (b[o + 5]! >> 5);
  return len >= 7 ? len : undefined;
}

/**
 * True if `count` consecutive frames chain from `o`. A frame running past the buffer end counts
 * when one whole frame precedes it: a lone header that runs off the end of a few bytes (a WAV
 * header cut at byte 10 reads as one) is chance, not a stream.
 */
function chains(b: Uint8Array, o: number, next: (o: number) => number | undefined, count: number): boolean {
  for (let i = 0; i < count; i++) {
    if (o >= b.length) return i > 1;
    const n = next(o);
    if (n === undefined) return false;
    o += n;
  }
  return true;
}

const ISO_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot', 'styp']);
const OGG_CODECS: [string, string][] = [
  ['OpusHead', 'Ogg/Opus'],
  ['\x01vorbis', 'Ogg/Vorbis'],
  ['\x7fFLAC', 'Ogg/FLAC'],
  ['Speex   ', 'Ogg/Speex'],
  ['\x80theora', 'Ogg/Theora'],
];

const WAV_LABELS: Record<RiffFlavour, string> = { riff: 'WAV', rf64: 'RF64 WAV', w64: 'Sony Wave64' };

/** How many leading bytes `sniff` looks at, at most. */
export const SNIFF_BYTES = 64 * 1024;

export function sniff(bytes: Uint8Array): Sniffed {
  const b = bytes.subarray(0, SNIFF_BYTES);
  const wav = riffFlavour(b);
  if (wav) return { kind: 'known', container: 'wav', label: WAV_LABELS[wav] };
  if (ascii(b, 0, 4) === 'OggS') {
    const segments = b[26] ?? 0;
    const packet = ascii(b, 27 + segments, 8);
    const codec = OGG_CODECS.find(([magic]) => packet.startsWith(magic));
    return { kind: 'known', container: 'ogg', label: codec?.[1] ?? 'Ogg' };
  }
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) {
    return { kind: 'known', container: 'matroska', label: ascii(b, 0, 64).includes('webm') ? 'WebM' : 'Matroska' };
  }
  if (ISO_BOXES.has(ascii(b, 4, 4))) {
    const brand = ascii(b, 4, 4) === 'ftyp' ? ascii(b, 8, 4).trim() : 'qt';
    return { kind: 'known', container: 'mp4', label: `ISO media (brand ${brand})` };
  }
  if (ascii(b, 0, 5) === '#!AMR') return { kind: 'unsupported', label: 'raw AMR' };
  if (ascii(b, 0, 4) === 'FORM' && ascii(b, 8, 3) === 'AIF') return { kind: 'unsupported', label: 'AIFF' };
  if (ascii(b, 0, 4) === 'caff') return { kind: 'unsupported', label: 'Core Audio Format (CAF)' };
  if (b[0] === 0x30 && b[1] === 0x26 && b[2] === 0xb2 && b[3] === 0x75) return { kind: 'unsupported', label: 'ASF/WMA' };

  // Formats that may follow an ID3v2 tag.
  const start = id3Length(b, 0);
  const tagged = start > 0;
  if (tagged && start >= bytes.length) return { kind: 'unknown' };
  const body = tagged ? bytes.subarray(start, start + SNIFF_BYTES) : b;
  if (ascii(body, 0, 4) === 'fLaC') return { kind: 'known', container: 'flac', label: 'FLAC' };
  if (chains(body, 0, (o) => adtsFrame(body, o), 3)) return { kind: 'known', container: 'aac', label: 'ADTS AAC' };
  // MP3 without a tag may start after a little junk; three chained frames rule out chance.
  const scanEnd = Math.min(body.length, 4096);
  for (let o = 0; o < scanEnd; o++) {
    const first = mpegFrame(body, o);
    if (!first) continue;
    const same = (p: number) => {
      const h = mpegFrame(body, p);
      return h && h.key === first.key ? h.bytes : undefined;
    };
    if (chains(body, o, same, 3)) return { kind: 'known', container: 'mp3', label: tagged ? 'MP3 (ID3v2)' : 'MP3' };
  }
  return { kind: 'unknown' };
}
