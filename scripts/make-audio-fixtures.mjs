#!/usr/bin/env node
/**
 * Generates the audio test fixtures into test/.fixtures/audio/ (gitignored) from real clips in
 * ../shared/eval, with ffmpeg and sox, plus for each a reference decode made by ffmpeg
 * (f32le, 16 kHz, mono by equal-weight averaging, soxr resampler). Idempotent: a manifest stamped
 * with this table's version is reused.
 *
 * Format table: one fixture per row of FIXTURES below (name, how it is made, encoding to send).
 * Rows with `error` must be rejected with invalid_audio whose detail matches that pattern.
 *
 * Run directly (`node scripts/make-audio-fixtures.mjs`), from unit tests (makeAudioFixtures), or as
 * the browser project's vitest globalSetup (default export).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EVAL = resolve(ROOT, process.env.STS_EVAL_DIR ?? '../shared/eval');
const OUT = join(resolve(ROOT, process.env.STS_FIXTURES_DIR ?? 'test/.fixtures'), 'audio');
const JFK = join(EVAL, 'en/jfk.flac'); // 44.1 kHz, 2 channels, 11 s
const OTHER = join(EVAL, 'en/1089-134686-0000.flac'); // a different speaker, for distinct channels
const AMI = join(EVAL, 'diar/ami_dev00.wav'); // 32-bit float WAV

const ff = (...args) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
const sox = (...args) => execFileSync('sox', args, { stdio: ['ignore', 'ignore', 'pipe'] });
/** Runs a writer whose output goes to a pipe (so it cannot seek back to fill in the sizes) into `o`. */
const piped = (cmd, args, o) => writeFileSync(o, execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }));
const probeChannels = (file, inputArgs = []) =>
  inputArgs.length ? null : Number(execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=channels', '-of', 'csv=p=0', file]).toString().trim());

/** Stereo: JFK on the left, another speaker on the right (so a downmix that drops a channel fails). */
const STEREO = ['-i', JFK, '-i', OTHER, '-filter_complex',
  '[0:a]pan=mono|c0=c0[l];[1:a]aresample=44100,apad[r];[l][r]join=inputs=2:channel_layout=stereo[s]', '-map', '[s]', '-t', '11'];
const MONO = (rate) => ['-i', JFK, '-ac', '1', '-ar', String(rate)];
const VIDEO = ['-f', 'lavfi', '-i', 'testsrc=size=96x64:rate=10', '-i', JFK, '-map', '0:v', '-map', '1:a', '-shortest',
  '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
const SIX = ['-i', JFK, '-af', 'pan=5.1|c0=c0|c1=0.8*c1|c2=0.6*c0|c3=0.4*c1|c4=0.3*c0|c5=0.2*c1', '-ar', '48000'];

/**
 * name | encoding sent | how it is made. `raw` rows carry the ffmpeg input format of the reference.
 * Containers: every one `auto` should recognise, every explicit container value, every raw encoding.
 */
const FIXTURES = [
  // WAV variants (parsed in TypeScript)
  { name: 'wav-u8-22k.wav', make: (o) => ff(...MONO(22050), '-c:a', 'pcm_u8', o) },
  { name: 'wav-s16-44k-stereo.wav', make: (o) => ff(...STEREO, '-c:a', 'pcm_s16le', o) },
  { name: 'wav-s24-48k.wav', make: (o) => ff(...MONO(48000), '-c:a', 'pcm_s24le', o) },
  { name: 'wav-s32-32k.wav', make: (o) => ff(...MONO(32000), '-c:a', 'pcm_s32le', o) },
  { name: 'wav-f32-16k.wav', make: (o) => ff(...MONO(16000), '-c:a', 'pcm_f32le', o) },
  { name: 'wav-f64-8k.wav', make: (o) => ff(...MONO(8000), '-c:a', 'pcm_f64le', o) },
  { name: 'wav-ext-s16-6ch.wav', make: (o) => ff(...SIX, '-c:a', 'pcm_s16le', o), extensible: true },
  { name: 'wav-ext-s24-stereo.wav', make: (o) => sox(JFK, '-b', '24', '-t', 'wav', o), extensible: true },
  { name: 'wav-alaw-8k.wav', make: (o) => ff(...MONO(8000), '-c:a', 'pcm_alaw', o) },
  { name: 'wav-mulaw-8k.wav', make: (o) => ff(...MONO(8000), '-c:a', 'pcm_mulaw', o) },
  { name: 'wav-ami-f32.wav', make: (o) => ff('-i', AMI, '-c:a', 'copy', o) },
  // Streamed WAV: written to a pipe, so the RIFF and data sizes are placeholders (ffmpeg 0xFFFFFFFF,
  // sox 0x7FFFF000); other decoders read them to the end of the body.
  { name: 'wav-streamed-ffmpeg-16k.wav', make: (o) => piped('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...MONO(16000), '-c:a', 'pcm_s16le', '-f', 'wav', '-'], o) },
  // sox knows the length of a file it reads and writes it; from a pipe it cannot, so it writes 0x7FFFF000.
  { name: 'wav-streamed-sox-8k.wav', make: (o) => piped('sh', ['-c',
    `ffmpeg -hide_banner -loglevel error -i '${JFK}' -ac 1 -f s16le - | sox -V1 -t raw -r 44100 -e signed -b 16 -c 1 - -r 8000 -t wav -`], o) },
  // 64-bit WAV variants: RF64 (sizes in a ds64 chunk) and Sony Wave64 (GUID chunks).
  { name: 'wav-rf64-s16-22k.wav', make: (o) => ff(...MONO(22050), '-c:a', 'pcm_s16le', '-rf64', 'always', o) },
  { name: 'wav-w64-f32-16k.w64', make: (o) => ff(...MONO(16000), '-c:a', 'pcm_f32le', '-f', 'w64', o) },
  // Compressed containers (WebAudio)
  { name: 'flac-stereo.flac', make: (o) => ff(...STEREO, '-c:a', 'flac', o) },
  { name: 'mp3-id3.mp3', make: (o) => ff(...STEREO, '-c:a', 'libmp3lame', '-b:a', '96k', '-metadata', 'title=jfk', o) },
  { name: 'mp3-no-id3.mp3', make: (o) => ff(...MONO(22050), '-c:a', 'libmp3lame', '-b:a', '48k', '-id3v2_version', '0', '-write_xing', '0', '-map_metadata', '-1', o) },
  { name: 'ogg-opus.ogg', make: (o) => ff(...STEREO, '-c:a', 'libopus', '-b:a', '48k', o) },
  { name: 'ogg-vorbis.ogg', make: (o) => ff(...MONO(44100), '-c:a', 'libvorbis', '-q:a', '4', o) },
  { name: 'webm-opus.webm', make: (o) => ff(...MONO(48000), '-c:a', 'libopus', '-b:a', '32k', o) },
  { name: 'mka-vorbis.mka', make: (o) => ff(...STEREO, '-c:a', 'libvorbis', '-q:a', '4', '-f', 'matroska', o) },
  { name: 'aac-adts.aac', make: (o) => ff(...MONO(44100), '-c:a', 'aac', '-b:a', '96k', '-f', 'adts', o) },
  { name: 'm4a-aac.m4a', encoding: 'm4a', make: (o) => ff(...STEREO, '-c:a', 'aac', '-b:a', '128k', '-f', 'ipod', o) },
  { name: 'm4a-aac-auto.m4a', make: (o) => ff(...MONO(44100), '-c:a', 'aac', '-b:a', '96k', '-movflags', '+faststart', '-f', 'ipod', o) },
  { name: 'mp4-video-aac.mp4', encoding: 'mp4', make: (o) => ff(...VIDEO, '-c:a', 'aac', '-b:a', '128k', o) },
  { name: 'm4v-video-aac.m4v', encoding: 'm4v', make: (o) => ff(...VIDEO, '-c:a', 'aac', '-b:a', '128k', '-f', 'mp4', '-brand', 'M4V ', o) },
  { name: 'mov-video-aac.mov', encoding: 'mov', make: (o) => ff(...VIDEO, '-c:a', 'aac', '-b:a', '128k', '-f', 'mov', o) },
  { name: '3gp-aac.3gp', encoding: '3gp', make: (o) => ff(...MONO(16000), '-c:a', 'aac', '-b:a', '32k', '-f', '3gp', o) },
  { name: '3g2-aac.3g2', encoding: '3g2', make: (o) => ff(...MONO(22050), '-c:a', 'aac', '-b:a', '48k', '-f', '3g2', o) },
  // Raw bodies (parsed in TypeScript); G.711 encoded by sox's own encoder
  { name: 'raw-s16-16k.pcm', encoding: 'pcm_s16le', sampleRate: 16000, channels: 1, raw: ['-f', 's16le', '-ar', '16000', '-ac', '1'],
    make: (o) => ff(...MONO(16000), '-f', 's16le', o) },
  { name: 'raw-s16-44k-stereo.pcm', encoding: 'pcm_s16le', sampleRate: 44100, channels: 2, raw: ['-f', 's16le', '-ar', '44100', '-ac', '2'],
    make: (o) => ff(...STEREO, '-f', 's16le', o) },
  { name: 'raw-s16-11k-10ch.pcm', encoding: 'pcm_s16le', sampleRate: 11025, channels: 10, raw: ['-f', 's16le', '-ar', '11025', '-ac', '10'],
    make: (o) => sox('-M', ...[1, 0.8, 0.6, 0.4, 0.2].flatMap((v) => ['-v', String(v), join(OUT, 'wav-s16-44k-stereo.wav')]),
      '-t', 'raw', '-e', 'signed', '-b', '16', '-r', '11025', o, 'trim', '0', '10') },
  { name: 'raw-mulaw-8k.ul', encoding: 'mulaw', sampleRate: 8000, channels: 1, raw: ['-f', 'mulaw', '-ar', '8000', '-ac', '1'],
    make: (o) => sox(JFK, '-t', 'raw', '-e', 'mu-law', '-b', '8', '-r', '8000', '-c', '1', o) },
  { name: 'raw-alaw-8k.al', encoding: 'alaw', sampleRate: 8000, channels: 1, raw: ['-f', 'alaw', '-ar', '8000', '-ac', '1'],
    make: (o) => sox(JFK, '-t', 'raw', '-e', 'a-law', '-b', '8', '-r', '8000', '-c', '1', o) },
  { name: 'raw-mulaw-8k-stereo.ul', encoding: 'mulaw', sampleRate: 8000, channels: 2, raw: ['-f', 'mulaw', '-ar', '8000', '-ac', '2'],
    make: (o) => ff(...STEREO, '-ar', '8000', '-f', 'mulaw', o) },
];

/** Bodies that must be rejected with invalid_audio, with what the detail must say. */
const truncate = (src, fraction) => (o) => {
  const b = readFileSync(join(OUT, src));
  writeFileSync(o, b.subarray(0, Math.floor(b.length * fraction)));
};
/** The file with every byte from `from` on zeroed: the length stays, the structure ends. */
const zeroFrom = (src, from) => (o) => {
  const b = readFileSync(join(OUT, src));
  b.fill(0, from);
  writeFileSync(o, b);
};
/** The WAV file up to and including its data chunk's header: not one sample. */
const headerOnly = (src) => (o) => {
  const b = readFileSync(join(OUT, src));
  writeFileSync(o, b.subarray(0, b.indexOf(Buffer.from('data')) + 8));
};
// A WAV cut inside its samples is not here: like ffmpeg and sox, we decode what is present.
const BAD = [
  { name: 'bad-truncated.wav', error: 'truncated', make: (o) => writeFileSync(o, readFileSync(join(OUT, 'wav-s16-44k-stereo.wav')).subarray(0, 30)) },
  { name: 'bad-truncated.flac', error: 'truncated', make: truncate('flac-stereo.flac', 0.5) },
  { name: 'bad-truncated-moov-at-end.mp4', error: 'truncated.*moov', make: truncate('mp4-video-aac.mp4', 0.5) },
  { name: 'bad-truncated-faststart.m4a', error: 'truncated', make: truncate('m4a-aac-auto.m4a', 0.5) },
  { name: 'bad-truncated.mp3', error: 'truncated', make: truncate('mp3-id3.mp3', 0.5) },
  { name: 'bad-truncated.ogg', error: 'truncated', make: truncate('ogg-opus.ogg', 0.5) },
  { name: 'bad-truncated.webm', error: 'truncated', make: truncate('webm-opus.webm', 0.5) },
  { name: 'bad-zeroed-tail.webm', error: 'damaged.*no element follows', make: zeroFrom('webm-opus.webm', 300) },
  { name: 'bad-header-only.wav', error: 'no samples', make: headerOnly('wav-s16-44k-stereo.wav') },
  { name: 'bad-video-only.mp4', encoding: 'mp4', error: 'no audio track', make: (o) => ff(...VIDEO.slice(0, 4), '-t', '2', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', o) },
  { name: 'bad-amr.3gp', encoding: '3gp', error: 'AMR', make: (o) => {
    // No AMR encoder in Debian's ffmpeg: write AAC and relabel the sample entry as AMR-NB.
    ff(...MONO(8000), '-c:a', 'aac', '-b:a', '12k', '-f', '3gp', o);
    const b = readFileSync(o);
    const at = b.indexOf(Buffer.from('mp4a'), b.indexOf(Buffer.from('stsd')));
    if (at < 0) throw new Error('no mp4a sample entry to patch');
    b.write('samr', at, 'latin1');
    writeFileSync(o, b);
  } },
  { name: 'bad-wav-declared-mp4.wav', encoding: 'mp4', error: 'declared', make: (o) => ff(...MONO(16000), '-c:a', 'pcm_s16le', '-t', '1', o) },
  { name: 'bad-random.bin', error: 'unrecognised', make: (o) => {
    // Deterministic noise (xorshift) so a failure reproduces.
    const b = Buffer.alloc(65536);
    let x = 0x9e3779b9;
    for (let i = 0; i < b.length; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; b[i] = x & 0xff; }
    writeFileSync(o, b);
  } },
  { name: 'bad-empty.bin', error: 'empty', make: (o) => writeFileSync(o, Buffer.alloc(0)) },
];

function reference(file, row) {
  const input = row.raw ? [...row.raw, '-i', file] : ['-i', file];
  const channels = row.channels ?? probeChannels(file);
  const pan = `pan=mono|c0=${Array.from({ length: channels }, (_, i) => `${1 / channels}*c${i}`).join('+')}`;
  const ref = `${file}.ref.f32`;
  ff(...input, '-map', '0:a:0', '-af', `${pan},aresample=16000:resampler=soxr:precision=28`, '-f', 'f32le', ref);
  return ref;
}

const VERSION = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 16);

/** Generates every fixture (unless already there for this version); returns the manifest path. */
export function makeAudioFixtures() {
  const manifestPath = join(OUT, 'manifest.json');
  if (existsSync(manifestPath) && JSON.parse(readFileSync(manifestPath, 'utf8')).version === VERSION) return manifestPath;
  mkdirSync(OUT, { recursive: true });
  const rows = [];
  for (const row of FIXTURES) {
    const file = join(OUT, row.name);
    try {
      row.make(file);
      reference(file, row);
    } catch (e) {
      throw new Error(`fixture ${row.name}: ${e.stderr?.toString() ?? e}`);
    }
    rows.push({
      name: row.name,
      encoding: row.encoding ?? 'auto',
      sampleRate: row.sampleRate ?? 16000,
      channels: row.channels ?? 1,
      ref: `${row.name}.ref.f32`,
      extensible: row.extensible ?? false,
    });
  }
  for (const row of BAD) {
    row.make(join(OUT, row.name));
    rows.push({ name: row.name, encoding: row.encoding ?? 'auto', sampleRate: 16000, channels: 1, error: row.error });
  }
  writeFileSync(manifestPath, JSON.stringify({ version: VERSION, rows }, null, 1));
  return manifestPath;
}

export default function setup() {
  makeAudioFixtures();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(makeAudioFixtures());
}
