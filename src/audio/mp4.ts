/**
 * Just enough ISO-BMFF (MP4, M4A, M4V, MOV, 3GP, 3G2) parsing to explain failures before handing
 * the bytes to the browser: which tracks exist, the audio codec, and whether the file is cut short.
 */
export interface Mp4Track {
  /** Handler type: 'soun' (audio), 'vide', 'text', ... */
  handler: string;
  /** Sample entry fourcc from stsd ('mp4a', 'samr', 'avc1', ...). */
  codec: string;
  /** Media duration in seconds from mdhd (0 when unknown). */
  duration: number;
}

export interface Mp4Info {
  hasMoov: boolean;
  tracks: Mp4Track[];
  /** Set when a top-level box declares more bytes than the file holds. */
  truncatedBox?: { type: string; declared: number; present: number };
}

interface Box { type: string; start: number; body: number; end: number }

const type4 = (b: Uint8Array, o: number) => String.fromCharCode(b[o]!, b[o + 1]!, b[o + 2]!, b[o + 3]!);

function* boxes(b: Uint8Array, v: DataView, from: number, to: number): Generator<Box> {
  let o = from;
  while (o + 8 <= to) {
    let size = v.getUint32(o);
    const type = type4(b, o + 4);
    let body = o + 8;
    if (size === 1) {
      if (o + 16 > to) return;
      size = Number(v.getBigUint64(o + 8));
      body = o + 16;
    } else if (size === 0) size = to - o;
    if (size < body - o) return;
    yield { type, start: o, body, end: o + size };
    o += size;
  }
}

const child = (b: Uint8Array, v: DataView, box: Box, type: string, bodyOffset = 0) => {
  for (const c of boxes(b, v, box.body + bodyOffset, Math.min(box.end, b.length))) if (c.type === type) return c;
  return undefined;
};

function track(b: Uint8Array, v: DataView, trak: Box): Mp4Track | undefined {
  const mdia = child(b, v, trak, 'mdia');
  if (!mdia) return undefined;
  const hdlr = child(b, v, mdia, 'hdlr');
  const handler = hdlr && hdlr.body + 12 <= b.length ? type4(b, hdlr.body + 8) : '????';
  let duration = 0;
  const mdhd = child(b, v, mdia, 'mdhd');
  if (mdhd && mdhd.body + 32 <= b.length) {
    const version = b[mdhd.body]!;
    const timescale = v.getUint32(mdhd.body + (version === 1 ? 20 : 12));
    const units = version === 1 ? Number(v.getBigUint64(mdhd.body + 24)) : v.getUint32(mdhd.body + 16);
    if (timescale > 0 && units !== 0xffffffff) duration = units / timescale;
  }
  let codec = '????';
  const minf = child(b, v, mdia, 'minf');
  const stbl = minf && child(b, v, minf, 'stbl');
  // stsd is a full box (4 bytes version/flags) with a 4-byte entry count before its entries.
  const stsd = stbl && child(b, v, stbl, 'stsd');
  if (stsd && stsd.body + 16 <= b.length) codec = type4(b, stsd.body + 12);
  return { handler, codec, duration };
}

export function inspectMp4(b: Uint8Array): Mp4Info {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const info: Mp4Info = { hasMoov: false, tracks: [] };
  for (const box of boxes(b, v, 0, b.length)) {
    if (box.end > b.length && !info.truncatedBox) {
      info.truncatedBox = { type: box.type, declared: box.end - box.start, present: b.length - box.start };
    }
    if (box.type !== 'moov') continue;
    info.hasMoov = true;
    for (const trak of boxes(b, v, box.body, Math.min(box.end, b.length))) {
      if (trak.type !== 'trak') continue;
      const t = track(b, v, trak);
      if (t) info.tracks.push(t);
    }
  }
  return info;
}

/** Telephony codecs that no browser decodes, rejected up front with their name. */
export const UNSUPPORTED_MP4_AUDIO: Record<string, string> = {
  samr: 'AMR-NB',
  sawb: 'AMR-WB',
  sawp: 'AMR-WB+',
  sevc: 'EVRC',
  sqcp: 'QCELP',
  ssmv: 'SMV',
};
