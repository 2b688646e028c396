import { beforeAll } from 'vitest';
import { encodeClip, loadNodeWhisper } from '../../../bench/bias-set/node-model';
import type { EncodedWindow, WhisperModel } from '../../../engine/whisper/model';
import { loadEvalClip } from './audio';

/** The real whisper-tiny (onnxruntime-web's wasm build in Node) and ../shared/eval's jfk.flac encoded, loaded before the file's tests. */
export function tinyOnJfk(): { model: WhisperModel; clip: { encoded: EncodedWindow; seconds: number } } {
  const loaded = {} as ReturnType<typeof tinyOnJfk>;
  beforeAll(async () => {
    loaded.model = await loadNodeWhisper('whisper-tiny');
    loaded.clip = await encodeClip(loaded.model, loadEvalClip('en/jfk.flac'));
  }, 120_000);
  return loaded;
}
