/**
 * LibriSpeech utterances packed into 30 s encoder windows, deterministically (seeded), for fitting the
 * speaker constants (train-clean-100) and for the verification EER (test-other). Packing several
 * speakers into one window puts speech at every encoder position (the per-position mean needs that) and
 * gives each utterance a neighbour in its attention context, as in a conversation.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SPEAKERS_DIR } from '../config/paths';
import { decodeFile } from '../bench/speaker-features';
import { seeded } from '../engine/decoding/seeded-random';

const SR = 16_000;
const WINDOW = 30 * SR;

export interface PackedUtterance {
  file: string;
  speaker: string;
  /** Sample offset of the utterance inside its window. */
  offset: number;
  audio: Float32Array;
}

export interface PackedWindow {
  audio: Float32Array;
  utterances: PackedUtterance[];
}

function flacFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...flacFiles(path));
    else if (name.endsWith('.flac')) out.push(path);
  }
  return out;
}

/** Utterances in a seeded random order, packed greedily (gaps of 0.3-1.5 s) with a random lead-in. */
function pack(files: string[], seed: number, maxPerWindow: number, maxWindows: number): PackedWindow[] {
  const rand = seeded(seed);
  const order = files.map((f) => ({ f, r: rand() })).sort((a, b) => a.r - b.r).map((x) => x.f);
  const windows: PackedWindow[] = [];
  let group: Array<{ file: string; audio: Float32Array }> = [];
  const flush = (): void => {
    if (group.length === 0) return;
    const gaps = group.map((_, i) => (i === 0 ? 0 : Math.round((0.3 + 1.2 * rand()) * SR)));
    const used = group.reduce((n, g, i) => n + g.audio.length + gaps[i]!, 0);
    let at = Math.floor(rand() * Math.max(0, WINDOW - used));
    const audio = new Float32Array(WINDOW);
    const utterances: PackedUtterance[] = [];
    group.forEach((g, i) => {
      at += gaps[i]!;
      const piece = g.audio.subarray(0, WINDOW - at);
      audio.set(piece, at);
      utterances.push({ file: basename(g.file), speaker: basename(g.file).split('-')[0]!, offset: at, audio: piece });
      at += piece.length;
    });
    windows.push({ audio, utterances });
    group = [];
  };
  for (const file of order) {
    if (windows.length >= maxWindows) return windows;
    const audio = decodeFile(file);
    const used = group.reduce((n, g) => n + g.audio.length + 1.5 * SR, 0);
    if (group.length >= maxPerWindow || used + audio.length > WINDOW) flush();
    group.push({ file, audio });
  }
  if (windows.length < maxWindows) flush();
  return windows;
}

/** The first `maxWindows` windows are the same whatever the limit (the order is drawn before packing). */
export const trainWindows = (maxWindows = Infinity): PackedWindow[] =>
  pack(flacFiles(join(SPEAKERS_DIR, 'librispeech_train-clean-100')), 1, 2, maxWindows);
export const testWindows = (maxWindows = Infinity): PackedWindow[] => pack(flacFiles(join(SPEAKERS_DIR, 'librispeech_test-other')), 2, 3, maxWindows);
