/**
 * Length of an Ogg Opus or Ogg Vorbis file from its header and the granule position (the end
 * sample) of its last page, read before decoding so an over-long file is refused before the
 * browser decodes it all. Only the first logical stream counts (the audio, in audio files); a
 * chained file (several streams one after another) may be longer than this says, which the
 * check after decoding catches.
 */

const isPage = (b: Uint8Array, o: number) => b[o] === 0x4f && b[o + 1] === 0x67 && b[o + 2] === 0x67 && b[o + 3] === 0x53 && b[o + 4] === 0;
const ascii = (b: Uint8Array, o: number, n: number) => String.fromCharCode(...b.subarray(o, o + n));

/** Samples per second of the granule position, and samples to subtract (Opus pre-skip); undefined for other codecs. */
function clockOf(b: Uint8Array, packet: number): { rate: number; skip: number } | undefined {
  if (packet + 16 > b.length) return undefined;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (ascii(b, packet, 8) === 'OpusHead') return { rate: 48000, skip: v.getUint16(packet + 10, true) };
  if (ascii(b, packet, 7) === '\x01vorbis') {
    const rate = v.getUint32(packet + 12, true);
    return rate > 0 ? { rate, skip: 0 } : undefined;
  }
  return undefined;
}

/**
 * Bits per second below which no Opus or Vorbis stream goes (Opus's floor is 6 kbit/s; Vorbis's
 * lowest quality about 45 kbit/s at 44.1 kHz), with a wide margin for silence-heavy streams.
 */
const MIN_BITRATE = 500;

/** How far back from the end to look for the last page of the stream (a page is at most 65 307 bytes). */
const TAIL = 140_000;

/** Seconds of audio an Ogg Opus/Vorbis file declares; 0 when unknown. */
export function oggSeconds(b: Uint8Array): number {
  if (b.length < 28 || !isPage(b, 0)) return 0;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const serial = v.getUint32(14, true);
  const clock = clockOf(b, 27 + b[26]!);
  if (!clock) return 0;
  const from = Math.max(0, b.length - TAIL);
  for (let o = b.length - 27; o >= from; o--) {
    if (!isPage(b, o) || v.getUint32(o + 14, true) !== serial) continue;
    const lo = v.getUint32(o + 6, true);
    const hi = v.getInt32(o + 10, true);
    if (hi === -1 && lo === 0xffffffff) continue; // no packet ends on this page
    const granule = hi * 2 ** 32 + lo;
    const seconds = granule > clock.skip ? (granule - clock.skip) / clock.rate : 0;
    // A position implying under MIN_BITRATE is a damaged field, not audio: unknown, not "too long".
    return seconds * MIN_BITRATE <= b.length * 8 ? seconds : 0;
  }
  return 0;
}

/** The Ogg page checksum's table: CRC-32 with polynomial 0x04C11DB7, not reflected, no final XOR. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

/** The page's checksum over bytes [o, end), its own checksum field (bytes 22-25) counted as zero. */
function pageCrc(b: Uint8Array, o: number, end: number): number {
  let crc = 0;
  for (let i = o; i < end; i++) {
    const byte = i >= o + 22 && i < o + 26 ? 0 : b[i]!;
    crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  }
  return crc;
}

/** End of the page at `o` (header, lacing table, segments), or -1 when the bytes stop before it. */
function pageEnd(b: Uint8Array, o: number): number {
  if (o + 27 > b.length) return -1;
  const segments = b[o + 26]!;
  let end = o + 27 + segments;
  if (end > b.length) return -1;
  for (let i = 0; i < segments; i++) end += b[o + 27 + i]!;
  return end <= b.length ? end : -1;
}

/** The checksum the page at `o` should carry (tests use it to write well-formed pages with odd fields). */
export const pageChecksum = (b: Uint8Array, o: number): number => pageCrc(b, o, pageEnd(b, o));

const storedCrc = (b: Uint8Array, o: number) => (b[o + 22]! | (b[o + 23]! << 8) | (b[o + 24]! << 16) | (b[o + 25]! << 24)) >>> 0;

/** A whole page with a right checksum starts at `o`. */
const isSoundPage = (b: Uint8Array, o: number) => {
  if (!isPage(b, o)) return false;
  const end = pageEnd(b, o);
  return end > 0 && pageCrc(b, o, end) === storedCrc(b, o);
};

/**
 * What is wrong with an Ogg file ('truncated: …' or 'damaged: …'), or null when it is whole. A physical Ogg stream is pages
 * back to back from its first byte, each with a CRC-32 of itself, so damage anywhere shows: a page
 * whose checksum fails (flipped or overwritten bytes inside it), bytes that are no page between two
 * pages (zeroed or overwritten data), or a last page cut short. Demuxers skip such pages and decode the
 * rest, so without this the audio there would be lost without a word. Bytes after a page that ends the
 * stream (its end-of-stream flag) are tolerated, as players ignore them.
 */
export function oggDamage(b: Uint8Array): string | null {
  let o = 0;
  let ended = false;
  while (o < b.length) {
    if (!isPage(b, o)) {
      let next = o + 1;
      while (next + 27 <= b.length && !isSoundPage(b, next)) next++;
      if (next + 27 <= b.length) return `damaged: bytes ${o} to ${next} are not Ogg pages (zeroed or overwritten data)`;
      return ended ? null : `damaged: from byte ${o} to its end (byte ${b.length}) no Ogg page follows (zeroed or overwritten data)`;
    }
    const end = pageEnd(b, o);
    if (end < 0) return `truncated: its page at byte ${o} is cut short`;
    if (pageCrc(b, o, end) !== storedCrc(b, o)) return `damaged: its page at byte ${o} fails its checksum`;
    ended = (b[o + 5]! & 0x04) !== 0;
    o = end;
  }
  return null;
}
