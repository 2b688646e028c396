import { invalidAudio, type ApiError } from '../api/errors';
import { inspectMp4, UNSUPPORTED_MP4_AUDIO } from './mp4';
import { oggDamage, oggSeconds } from './ogg';
import { id3Length, mpegFrame, type Container } from './sniff';

/**
 * Checks a compressed file before and after the browser decodes it, so that what WebAudio reports
 * as a bare failure (or silently decodes partially) becomes an error naming the cause.
 */
export interface Expectation {
  /** Seconds of audio the container declares, firmly enough to call less a truncation (0: unknown). */
  duration: number;
  /**
   * Seconds of audio for the length limit, where known only from an end position (Ogg) and so not
   * firm enough to detect truncation by; `duration` when absent.
   */
  lengthHint?: number;
  /** The audio codec's code where the container names it (MP4 sample entry), for error details. */
  codec?: string;
  /**
   * Decoded frames to drop at the start and to keep after them, where the file says (an MP3's LAME
   * tag: encoder delay and padding). WebAudio applies it itself; a WebCodecs decoder does not.
   */
  trim?: { skip: number; keep: number };
}

/** The MP3 decoder's own delay in samples, which players add to the LAME tag's encoder delay (as ffmpeg does). */
const MP3_DECODER_DELAY = 529;

/**
 * Encoder delay and padding from the LAME tag after a Xing/Info header (at `xing`), written by
 * LAME and by ffmpeg: 9 bytes of encoder name, 12 bytes of other fields, then delay and padding as
 * two 12-bit numbers. `frames` is the Xing frame count (0 if absent: then nothing is kept short).
 */
function lameTrim(bytes: Uint8Array, xing: number, frames: number, samplesPerFrame: number): Expectation['trim'] {
  const flags = bytes[xing + 7]!;
  let p = xing + 8;
  for (const [bit, size] of [[1, 4], [2, 4], [4, 100], [8, 4]] as const) if (flags & bit) p += size;
  if (p + 24 > bytes.length) return undefined;
  const name = String.fromCharCode(...bytes.subarray(p, p + 4));
  if (name !== 'LAME' && name !== 'Lavc' && name !== 'Lavf' && name !== 'L3.9') return undefined;
  const delay = (bytes[p + 21]! << 4) | (bytes[p + 22]! >> 4);
  const padding = ((bytes[p + 22]! & 15) << 8) | bytes[p + 23]!;
  const total = frames * samplesPerFrame;
  return { skip: delay + MP3_DECODER_DELAY, keep: total > delay + padding ? total - delay - padding : Infinity };
}

const HANDLERS: Record<string, string> = { vide: 'video', text: 'text', sbtl: 'subtitle', subt: 'subtitle', hint: 'hint', meta: 'metadata' };

function checkMp4(bytes: Uint8Array): Expectation {
  const info = inspectMp4(bytes);
  const cut = info.truncatedBox;
  const cutText = cut ? `box '${cut.type}' declares ${cut.declared} bytes but only ${cut.present} are present` : '';
  if (!info.hasMoov) {
    throw invalidAudio(
      cut
        ? `the file is truncated (${cutText}) and its index (moov box) is missing`
        : 'the file has no moov box (its index): not a complete MP4/MOV/3GP file',
    );
  }
  if (cut) throw invalidAudio(`the file is truncated: ${cutText}`);
  const audio = info.tracks.find((t) => t.handler === 'soun');
  if (!audio) {
    // own keys only: the four-character codes come from the file
    const others = info.tracks.map((t) => `${Object.hasOwn(HANDLERS, t.handler) ? HANDLERS[t.handler] : t.handler} '${t.codec}'`).join(', ');
    throw invalidAudio(`the file has no audio track${others ? ` (it holds: ${others})` : ''}`);
  }
  const unsupported = Object.hasOwn(UNSUPPORTED_MP4_AUDIO, audio.codec) ? UNSUPPORTED_MP4_AUDIO[audio.codec] : undefined;
  if (unsupported) throw invalidAudio(`the audio track's codec ${unsupported} ('${audio.codec}') is not supported`);
  return { duration: audio.duration, codec: audio.codec };
}

function checkFlac(bytes: Uint8Array): Expectation {
  // "fLaC" (possibly after an ID3v2 tag), the STREAMINFO block header (4 bytes), then its fields.
  const o = id3Length(bytes, 0) + 8;
  if (bytes.length < o + 18) throw invalidAudio('the FLAC file is truncated inside its STREAMINFO header');
  const rate = (bytes[o + 10]! << 12) | (bytes[o + 11]! << 4) | (bytes[o + 12]! >> 4);
  const total = (bytes[o + 13]! & 0x0f) * 2 ** 32 + ((bytes[o + 14]! << 24) >>> 0) + (bytes[o + 15]! << 16) + (bytes[o + 16]! << 8) + bytes[o + 17]!;
  return { duration: rate > 0 ? total / rate : 0 };
}

function checkOgg(bytes: Uint8Array): Expectation {
  const damage = oggDamage(bytes);
  if (damage) throw invalidAudio(`the Ogg file is ${damage}`);
  return { duration: 0, lengthHint: oggSeconds(bytes) };
}

/** The big-endian 32-bit number at `p`; 0 where the bytes end before it. */
const u32be = (b: Uint8Array, p: number) => (p + 4 <= b.length ? ((b[p]! << 24) >>> 0) + (b[p + 1]! << 16) + (b[p + 2]! << 8) + b[p + 3]! : 0);

/** EBML variable-length integer at `o`: [value, length], value -1 for "unknown size". */
function vint(b: Uint8Array, o: number): [number, number] {
  const first = b[o] ?? 0;
  let len = 1;
  while (len <= 8 && !(first & (0x80 >> (len - 1)))) len++;
  if (len > 8 || o + len > b.length) return [-1, 1];
  let value = first & (0xff >> len);
  let allOnes = value === 0xff >> len;
  for (let i = 1; i < len; i++) {
    value = value * 256 + b[o + i]!;
    if (b[o + i] !== 0xff) allOnes = false;
  }
  return [allOnes ? -1 : value, len];
}

function checkMatroska(bytes: Uint8Array): Expectation {
  // EBML header element (ID 1A45DFA3), then the Segment (ID 18538067) whose size, when known,
  // must fit in the file.
  const [headerSize, headerLen] = vint(bytes, 4);
  const seg = 4 + headerLen + Math.max(headerSize, 0);
  if (seg + 5 > bytes.length) throw invalidAudio('the WebM/Matroska file is truncated inside its header');
  if (bytes[seg] === 0x18 && bytes[seg + 1] === 0x53 && bytes[seg + 2] === 0x80 && bytes[seg + 3] === 0x67) {
    const [size, len] = vint(bytes, seg + 4);
    const present = bytes.length - (seg + 4 + len);
    if (size >= 0 && size > present) {
      throw invalidAudio(`the WebM/Matroska file is truncated: its segment declares ${size} bytes but only ${present} are present`);
    }
    // a live recording (MediaRecorder, ffmpeg -live) leaves the size unknown: the segment runs to the file's end
    checkSegmentElements(bytes, seg + 4 + len, size >= 0 ? seg + 4 + len + size : bytes.length);
  }
  return { duration: 0 };
}

/** The IDs a Matroska segment's top level may hold (SeekHead, Info, Tracks, Cluster, Cues, Attachments, Chapters, Tags), and Void. */
const LEVEL_1_IDS = new Set([0x114d9b74, 0x1549a966, 0x1654ae6b, 0x1f43b675, 0x1c53bb6b, 0x1941a469, 0x1043a770, 0x1254c367]);
const CLUSTER_ID = 0x1f43b675;
const VOID_ID = 0xec;
/** The IDs a cluster holds: Timestamp, SilentTracks, Position, PrevSize, SimpleBlock, BlockGroup, EncryptedBlock, Void, CRC-32. */
const CLUSTER_CHILD_IDS = new Set([0xe7, 0x5854, 0xa7, 0xab, 0xa3, 0xa0, 0xaf, VOID_ID, 0xbf]);

/** The error for junk at `pos` (where an element should start in a segment ending at `end`), `where` prefixed. */
function junkAt(b: Uint8Array, pos: number, end: number, where = ''): ApiError {
  const next = nextTopLevelId(b, pos, end);
  const span = next < 0 ? `from byte ${pos} to its segment's end (byte ${end}) no element follows` : `bytes ${pos} to ${next} are no element`;
  return damagedWebm(where + span);
}

const damagedWebm = (detail: string) => invalidAudio(`the WebM/Matroska file is damaged: ${detail} (zeroed or overwritten data)`);

/** The EBML element ID at `o` (marker bits included) and its length in bytes; length 0 where none can start. */
function elementId(b: Uint8Array, o: number): [number, number] {
  const first = b[o] ?? 0;
  const len = first >= 0x80 ? 1 : first >= 0x40 ? 2 : first >= 0x20 ? 3 : first >= 0x10 ? 4 : 0;
  if (len === 0 || o + len > b.length) return [0, 0];
  let id = 0;
  for (let i = 0; i < len; i++) id = id * 256 + b[o + i]!;
  return [id, len];
}

/**
 * Walks a segment [start, end) element by element, and each cluster's blocks, as the demuxer does.
 * Matroska carries no checksums, so damage shows as junk where an element should start (zeroed or
 * overwritten bytes): the demuxer searches onwards for the next top-level ID and drops what lies
 * between, losing that audio without a word, and mediabunny 1.61's search never returns when no
 * element follows before the segment's end (it stops advancing 8 bytes short of it, on the page's
 * thread). Both are refused here. Fewer than 8 bytes of junk at the very end are left, as the demuxer
 * leaves them.
 */
function checkSegmentElements(b: Uint8Array, start: number, end: number): void {
  let pos = start;
  while (pos + 8 <= end) {
    // the IDs that may stand here are Void (one byte) and the level-1 ones (four)
    const [id, idLen] = elementId(b, pos);
    if (id !== VOID_ID && !(idLen === 4 && LEVEL_1_IDS.has(id))) throw junkAt(b, pos, end);
    const [size, sizeLen] = vint(b, pos + idLen);
    const data = pos + idLen + sizeLen;
    if (id === CLUSTER_ID) pos = checkCluster(b, pos, data, size >= 0 ? data + size : -1, end);
    else if (size >= 0) pos = data + size;
    else return; // an element of unknown size other than a cluster: its end is only found by parsing it
  }
}

/**
 * Walks the children of the cluster at `at` (data from `start`; `end` -1 when its size is unknown: it
 * ends where the next top-level element starts, or with the segment). Returns where the cluster ends.
 */
function checkCluster(b: Uint8Array, at: number, start: number, end: number, segmentEnd: number): number {
  const limit = end < 0 ? segmentEnd : Math.min(end, segmentEnd);
  let pos = start;
  while (pos < limit) {
    const [id, idLen] = elementId(b, pos);
    if (end < 0 && idLen === 4 && LEVEL_1_IDS.has(id)) return pos;
    const [size, sizeLen] = idLen > 0 ? vint(b, pos + idLen) : [-1, 0];
    if (!CLUSTER_CHILD_IDS.has(id) || size < 0) throw junkAt(b, pos, segmentEnd, `inside the cluster at byte ${at}, `);
    const next = pos + idLen + sizeLen + size;
    if (next > limit) {
      if (limit === b.length) throw invalidAudio(`the WebM/Matroska file is truncated: its block at byte ${pos} is cut short`);
      throw damagedWebm(`the block at byte ${pos} runs past its cluster's end (byte ${limit})`);
    }
    pos = next;
  }
  return limit;
}

/** The first position in [from, until - 8] where a 4-byte top-level ID starts, or -1. */
function nextTopLevelId(b: Uint8Array, from: number, until: number): number {
  for (let o = from; o + 8 < until; o++) {
    if ((b[o]! & 0xf0) === 0x10 && LEVEL_1_IDS.has(u32be(b, o))) return o;
  }
  return -1;
}

/** Frame count from a Xing/Info (LAME, ffmpeg) or VBRI (Fraunhofer) header in the first frame. */
function checkMp3(bytes: Uint8Array): Expectation {
  const start = id3Length(bytes, 0);
  const end = Math.min(bytes.length, start + 4096);
  for (let o = start; o < end; o++) {
    const h = mpegFrame(bytes, o);
    if (!h) continue;
    const tag = (p: number) => String.fromCharCode(...bytes.subarray(p, p + 4));
    const xing = o + 4 + (h.mpeg1 ? (h.mono ? 17 : 32) : h.mono ? 9 : 17);
    let frames = 0;
    let trim: Expectation['trim'];
    if (tag(xing) === 'Xing' || tag(xing) === 'Info') {
      if (u32be(bytes, xing + 4) & 1) frames = u32be(bytes, xing + 8);
      trim = lameTrim(bytes, xing, frames, h.samplesPerFrame);
    } else if (tag(o + 36) === 'VBRI') frames = u32be(bytes, o + 36 + 14);
    // the decoded length: LAME's delay and padding (over 0.1 s at 12 kHz and below) are trimmed away
    const samples = trim && Number.isFinite(trim.keep) ? trim.keep : frames * h.samplesPerFrame;
    return { duration: samples / h.sampleRate, ...(trim && { trim }) };
  }
  return { duration: 0 };
}

/** Throws invalid_audio for a damaged or unusable container; returns what it declares. */
export function checkBeforeDecode(container: Container, bytes: Uint8Array): Expectation {
  switch (container) {
    case 'mp4': return checkMp4(bytes);
    case 'flac': return checkFlac(bytes);
    case 'ogg': return checkOgg(bytes);
    case 'matroska': return checkMatroska(bytes);
    case 'mp3': return checkMp3(bytes);
    default: return { duration: 0 };
  }
}

/** Throws invalid_audio when far less audio came out than the container declared. */
export function checkAfterDecode(expected: Expectation, decodedSeconds: number): void {
  if (expected.duration <= 0) return;
  const tolerance = Math.max(0.1, expected.duration * 0.01);
  if (decodedSeconds < expected.duration - tolerance) {
    throw invalidAudio(
      `the file is truncated: it declares ${expected.duration.toFixed(2)} s of audio but only ` +
        `${decodedSeconds.toFixed(2)} s could be decoded`,
    );
  }
}
