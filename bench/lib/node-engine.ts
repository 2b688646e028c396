/**
 * The worker's Engine (engine/pipeline.ts) run in Node, for measurements that need the whole pipeline
 * but no browser: onnxruntime-web's wasm build as bench/bias-set/node-model.ts sets it up, and the
 * models folder (public/models, filled by `npm run models`) served over HTTP on 127.0.0.1, because the
 * engine fetches and verifies its files by URL.
 */
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { ROOT } from '../../config/paths';
import { serveDir } from '../../config/vite-plugins';
import { Engine } from '../../engine/pipeline';
import type { Decoding, EncoderWindow, EngineRequest, EngineResult, ModelName, ProgressEvent } from '../../engine/protocol';
import { nodeOrt } from '../bias-set/node-model';

export interface NodeEngine {
  /** Transcribes with this decoding configuration (the loaded models are kept between configurations). */
  transcribe(
    audio: Float32Array,
    config: { encoderWindow: EncoderWindow; decoding: Decoding },
    request?: Partial<EngineRequest>,
    onProgress?: (e: ProgressEvent) => void,
  ): Promise<EngineResult>;
  close(): Promise<void>;
}

/** An English request as `npm run eval` sends for en/: language given, words on, no biasing or diarization. */
const ENGLISH: Omit<EngineRequest, 'audio'> = {
  languages: ['en'],
  phrases: [],
  biasStrength: 0,
  patterns: [],
  fillerMode: 'natural',
  wantWordTimes: true,
  diarize: false,
  maxSpeakers: null,
};

export async function startNodeEngine(model: ModelName, root = resolve(ROOT, 'public/models')): Promise<NodeEngine> {
  (globalThis as { navigator?: object }).navigator ??= { hardwareConcurrency: 1 };
  nodeOrt();
  const files = serveDir('/', root);
  const server = createServer((req, res) =>
    files(req, res, () => {
      res.statusCode = 404;
      res.end();
    }),
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  const engine = new Engine();
  let jobs = 0;
  return {
    async transcribe(audio, config, request = {}, onProgress) {
      // load() keeps the models of the first call and takes this call's decoding configuration
      await engine.load({ modelBaseUrl: `http://127.0.0.1:${port}/`, wasmBaseUrl: '', cacheModels: false, model, backend: 'wasm', ...config });
      return engine.transcribe(++jobs, { ...ENGLISH, audio, ...request }, onProgress);
    },
    async close() {
      await engine.dispose();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
