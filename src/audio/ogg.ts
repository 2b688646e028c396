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
