import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkBeforeDecode } from '../../src/audio/integrity';
import { pageChecksum } from '../../src/audio/ogg';
import { inspectMp4 } from '../../src/audio/mp4';
import { sniff, type Container } from '../../src/audio/sniff';
import { makeAudioFixtures } from '../../scripts/make-audio-fixtures.mjs';

let dir = '';
beforeAll(() => {
  dir = join(makeAudioFixtures(), '..');
}, 300_000);
const read = (name: string) => new Uint8Array(readFileSync(join(dir, name)));

/** What `auto` must detect for each container fixture, from the bytes alone. */
const EXPECTED: [string, Container, RegExp][] = [
  ['wav-u8-22k.wav', 'wav', /WAV/],
  ['wav-ext-s16-6ch.wav', 'wav', /WAV/],
  ['flac-stereo.flac', 'flac', /FLAC/],
  ['mp3-id3.mp3', 'mp3', /ID3/],
  ['mp3-no-id3.mp3', 'mp3', /^MP3$/],
  ['ogg-opus.ogg', 'ogg', /Opus/],
  ['ogg-vorbis.ogg', 'ogg', /Vorbis/],
  ['webm-opus.webm', 'matroska', /WebM/],
  ['mka-vorbis.mka', 'matroska', /Matroska/],
  ['aac-adts.aac', 'aac', /ADTS/],
  ['m4a-aac.m4a', 'mp4', /M4A/],
  ['mp4-video-aac.mp4', 'mp4', /isom/],
  ['m4v-video-aac.m4v', 'mp4', /M4V/],
  ['mov-video-aac.mov', 'mp4', /qt/],
  ['3gp-aac.3gp', 'mp4', /3gp/],
  ['3g2-aac.3g2', 'mp4', /3g2/],
];

describe('sniff', () => {
  it.each(EXPECTED)('%s is %s', (name, container, label) => {
    const found = sniff(read(name));
    expect(found).toMatchObject({ kind: 'known', container });
    expect(found.kind === 'known' && found.label).toMatch(label);
  });

  it('does not take noise, text or raw PCM for a container', () => {
    expect(sniff(read('bad-random.bin'))).toEqual({ kind: 'unknown' });
    expect(sniff(new TextEncoder().encode('{"hello": "world"} not audio at all'))).toEqual({ kind: 'unknown' });
    expect(sniff(read('raw-s16-16k.pcm'))).toEqual({ kind: 'unknown' });
    expect(sniff(read('raw-mulaw-8k.ul'))).toEqual({ kind: 'unknown' });
  });

  it('finds MP3 frames after a few bytes of junk but not one lone sync word', () => {
    const mp3 = read('mp3-no-id3.mp3');
    const junk = new Uint8Array(mp3.length + 5);
    junk.set([1, 2, 3, 4, 5]);
    junk.set(mp3, 5);
    expect(sniff(junk)).toMatchObject({ container: 'mp3' });
    expect(sniff(Uint8Array.from([0xff, 0xfb, 0x90, 0x64, ...new Array(600).fill(7)]))).toEqual({ kind: 'unknown' });
  });

  it('names formats it recognises but does not decode', () => {
    expect(sniff(new TextEncoder().encode('#!AMR\n\x3c\x00\x00'))).toEqual({ kind: 'unsupported', label: 'raw AMR' });
  });
});

describe('container integrity', () => {
  it('lists the tracks of an MP4 with video and audio', () => {
    const info = inspectMp4(read('mp4-video-aac.mp4'));
    expect(info.tracks.map((t) => `${t.handler}:${t.codec}`).sort()).toEqual(['soun:mp4a', 'vide:avc1']);
    expect(info.tracks.find((t) => t.handler === 'soun')!.duration).toBeCloseTo(11, 0);
  });

  it.each([
    ['bad-video-only.mp4', /no audio track.*video 'avc1'/],
    ['bad-amr.3gp', /AMR-NB \('samr'\)/],
    ['bad-truncated-moov-at-end.mp4', /truncated.*moov/],
    ['bad-truncated-faststart.m4a', /truncated: box 'mdat'/],
    ['bad-truncated.ogg', /Ogg file is truncated/],
    ['bad-truncated.webm', /truncated: its segment declares/],
  ])('%s → invalid_audio %s', (name, why) => {
    const bytes = read(name);
    const found = sniff(bytes);
    if (found.kind !== 'known') throw new Error(`${name} not sniffed`);
    expect(() => checkBeforeDecode(found.container, bytes)).toThrow(why);
  });

  it('passes the intact files and reads the durations they declare', () => {
    for (const name of ['mp4-video-aac.mp4', '3gp-aac.3gp', 'ogg-opus.ogg', 'webm-opus.webm', 'flac-stereo.flac', 'mp3-id3.mp3']) {
      const bytes = read(name);
      const found = sniff(bytes);
      if (found.kind !== 'known') throw new Error(name);
      const expected = checkBeforeDecode(found.container, bytes);
      if (!/\.(ogg|webm)$/.test(name)) expect(expected.duration, name).toBeCloseTo(11, 0);
    }
  });

  /** Writes the page's checksum for its present bytes. */
  const resign = (b: Uint8Array, page: number) => new DataView(b.buffer, b.byteOffset).setUint32(page + 22, pageChecksum(b, page), true);
  it('reads the length of Ogg Opus and Ogg Vorbis from the last page, and nothing from Speex', () => {
    for (const name of ['ogg-opus.ogg', 'ogg-vorbis.ogg']) {
      expect(checkBeforeDecode('ogg', read(name)).lengthHint, name).toBeCloseTo(11, 1);
    }
    // A damaged end position (here 2^40 samples: 260 days) is unknown, not a reason to refuse the file.
    const damaged = read('ogg-opus.ogg');
    const last = damaged.lastIndexOf(0x4f, damaged.length - 27);
    let page = last;
    while (!(damaged[page] === 0x4f && damaged[page + 1] === 0x67 && damaged[page + 2] === 0x67 && damaged[page + 3] === 0x53)) page--;
    damaged[page + 11] = 1;
    expect(() => checkBeforeDecode('ogg', damaged)).toThrow(/fails its checksum/);
    // ... and where an encoder wrote it so, checksum and all, the length is unknown.
    resign(damaged, page);
    expect(checkBeforeDecode('ogg', damaged).lengthHint).toBe(0);
    const speex = read('ogg-opus.ogg');
    speex.set(new TextEncoder().encode('Speex   '), 27 + speex[26]!);
    resign(speex, 0);
    expect(checkBeforeDecode('ogg', speex).lengthHint).toBe(0);
  });

  it('tolerates junk after the last (end-of-stream) Ogg page, and an MP3 without a Xing header declares nothing', () => {
    const ogg = read('ogg-opus.ogg');
    const padded = new Uint8Array(ogg.length + 128);
    padded.set(ogg);
    padded.set(new TextEncoder().encode('TAG junk'), ogg.length);
    // Its end position still gives the length (for the limit), not firm enough to call less truncated.
    const ogg11 = checkBeforeDecode('ogg', padded);
    expect(ogg11.duration).toBe(0);
    expect(ogg11.lengthHint).toBeCloseTo(11, 1);
    expect(checkBeforeDecode('mp3', read('mp3-no-id3.mp3'))).toEqual({ duration: 0 });
  });
});
