import { invalidAudio } from '../api/errors';

/**
 * The chunk layouts of the WAV family, walked the same way: RIFF/WAVE (32-bit sizes), RF64 and BW64
 * (RIFF with 64-bit sizes in a leading ds64 chunk, EBU Tech 3306 / ITU-R BS.2088) and Sony Wave64
 * (GUID chunk ids, 64-bit sizes that include the 24-byte chunk header, 8-byte alignment).
 */
export type RiffFlavour = 'riff' | 'rf64' | 'w64';

export interface Chunk {
  /** Four-character id ('fmt ', 'data', ...); W64 GUIDs of the standard form map to the same ids. */
  id: string;
  /** Offset of the chunk's body in the file. */
  body: number;
  /** Body size the header declares (may exceed the file: the caller decides what that means). */
  size: number;
  /** The size field holds a placeholder that streaming writers use (0 or all ones), not a length. */
  placeholder: boolean;
}

const ascii = (b: Uint8Array, o: number, n: number) => String.fromCharCode(...b.subarray(o, o + n));

/** Wave64's GUIDs are the fourcc followed by this suffix (except 'riff', see below). */
const W64_SUFFIX = [0xf3, 0xac, 0xd3, 0x11, 0x8c, 0xd1, 0x00, 0xc0, 0x4f, 0x8e, 0xdb, 0x8a];
const W64_RIFF = [0x72, 0x69, 0x66, 0x66, 0x2e, 0x91, 0xcf, 0x11, 0xa5, 0xd6, 0x28, 0xdb, 0x04, 0xc1, 0x00, 0x00];
const W64_WAVE = [0x77, 0x61, 0x76, 0x65, ...W64_SUFFIX];

const startsWith = (b: Uint8Array, o: number, bytes: readonly number[]) => bytes.every((x, i) => b[o + i] === x);

/** Which layout the first bytes announce, if any. */
export function riffFlavour(b: Uint8Array): RiffFlavour | undefined {
  const magic = ascii(b, 0, 4);
  if (magic === 'RIFF' && ascii(b, 8, 4) === 'WAVE') return 'riff';
  if ((magic === 'RF64' || magic === 'BW64') && ascii(b, 8, 4) === 'WAVE') return 'rf64';
  if (startsWith(b, 0, W64_RIFF) && startsWith(b, 24, W64_WAVE)) return 'w64';
  return undefined;
}

const u64 = (v: DataView, o: number) => v.getUint32(o, true) + v.getUint32(o + 4, true) * 2 ** 32;

/** RF64's real data size, from the ds64 chunk that must come first (0 if it is missing or cut). */
function ds64DataSize(b: Uint8Array, v: DataView): number {
  if (b.length < 12 + 8 + 16 || ascii(b, 12, 4) !== 'ds64') return 0;
  return u64(v, 12 + 8 + 8);
}

/**
 * The chunks of a WAV-family file in order. Stops at the end of the bytes; a chunk whose header
 * is cut short is not returned. Sizes are reported as declared: a streaming writer's placeholder,
 * or a size running past the end, is the caller's to interpret.
 */
export function* riffChunks(bytes: Uint8Array, flavour: RiffFlavour): Generator<Chunk> {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (flavour === 'w64') {
    for (let o = 40; o + 24 <= bytes.length; ) {
      const id = startsWith(bytes, o + 4, W64_SUFFIX) ? ascii(bytes, o, 4) : `guid:${ascii(bytes, o, 4)}`;
      const total = u64(v, o + 16);
      // The size counts the 24-byte header itself: less means a damaged header (and no progress).
      if (total < 24) {
        if (id === 'data') yield { id, body: o + 24, size: 0, placeholder: true };
        else throw invalidAudio(`Wave64 chunk '${id}' declares ${total} bytes, less than its own header`);
        return;
      }
      yield { id, body: o + 24, size: total - 24, placeholder: false };
      o += Math.ceil(total / 8) * 8;
    }
    return;
  }
  const ds64Data = flavour === 'rf64' ? ds64DataSize(bytes, v) : 0;
  for (let o = 12; o + 8 <= bytes.length; ) {
    const id = ascii(bytes, o, 4);
    let size = v.getUint32(o + 4, true);
    let placeholder = size === 0 || size === 0xffffffff;
    // RF64: a data size of all ones means "see ds64".
    if (flavour === 'rf64' && id === 'data' && size === 0xffffffff && ds64Data > 0) {
      size = ds64Data;
      placeholder = false;
    }
    yield { id, body: o + 8, size, placeholder };
    o += 8 + size + (size & 1);
  }
}
