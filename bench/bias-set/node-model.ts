/**
 * whisper-tiny (or base) in Node through onnxruntime-web's wasm build: the same WhisperModel,
 * vocabulary, mel front end and decode loop as the worker, for biasing measurements without a browser.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as ort from 'onnxruntime-web/wasm';
import { ROOT } from '../../config/paths';
import { FULL_FRAMES, logMelSpectrogram } from '../../engine/whisper/features';
import { SAMPLE_RATE, type ModelName } from '../../engine/protocol';
import { whisperLoadOptions } from '../../engine/pipeline';
import { sessionOptions } from '../../engine/runtime/backend';
import { loadWhisper, type ModelFileSource, type WhisperLoadOptions } from '../../engine/whisper/loader';
import { WhisperModel, type EncodedWindow } from '../../engine/whisper/model';

/** The models folder (public/models, filled by `npm run models`) read from disk, for the engine's loader. */
export function modelFolder(root = resolve(ROOT, 'public/models')): ModelFileSource {
  return {
    bytes: async (path) => readFileSync(resolve(root, path)),
    json: async <T>(path: string) => JSON.parse(readFileSync(resolve(root, path), 'utf8')) as T,
  };
}

/** onnxruntime-web's wasm build set up for Node: one thread unless asked (before its first session), its .wasm read from node_modules. */
export function nodeOrt(threads = 1): typeof ort {
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = `${resolve(ROOT, 'node_modules/onnxruntime-web/dist')}/`;
  ort.env.logLevel = 'error';
  return ort;
}

/** The model as the engine loads it on WASM (whisperLoadOptions, with `instead` over them), in Node. */
export async function loadNodeWhisper(model = 'whisper-tiny', instead: Pick<WhisperLoadOptions, 'logitsWeight' | 'floatArithmetic'> = {}, threads = 1): Promise<WhisperModel> {
  const options = { ...whisperLoadOptions(model as ModelName, 'wasm'), ...instead };
  return loadWhisper(nodeOrt(threads), modelFolder(), model, sessionOptions('wasm'), options);
}

/** Any audio file ffmpeg reads, as 16 kHz mono float PCM. */
export function readAudio(path: string): Float32Array {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 'f32le', '-'], {
    maxBuffer: 1 << 30,
  });
  return new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4).slice();
}

/** Encodes a clip of at most 30 s once (its first window), for the decode loops that follow. */
export async function encodeClip(model: WhisperModel, audio: Float32Array): Promise<{ encoded: EncodedWindow; seconds: number }> {
  const clip = audio.subarray(0, SAMPLE_RATE * 30);
  const encoded = await model.encode(logMelSpectrogram(clip, FULL_FRAMES), FULL_FRAMES);
  return { encoded, seconds: clip.length / SAMPLE_RATE };
}
