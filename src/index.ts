export { createTranscriber, Transcriber, DEFAULT_MODEL } from './transcriber';
export type { AudioInput, TranscriberConfig, TranscribeOptions } from './transcriber';
export { ApiError } from './api/errors';
export { clearModelCache, modelCacheInfo, MODEL_CACHE, type ModelCacheInfo } from '../engine/runtime/model-files';
export type { TranscriptionParams, TranscriptionParamsInput } from './api/params';
export type { Transcript } from './api/transcript';
export { AUDIO_ENCODINGS, DEFAULT_MAX_AUDIO_SECONDS, type AudioEncoding } from './audio/index';
export type { ModelName, BackendChoice, ProgressEvent } from '../engine/protocol';
export {
  registerLocalApi,
  provisionApiKey,
  listApiKeys,
  revokeApiKey,
  getLimits,
  setLimits,
  resetLimits,
  DEFAULT_LIMITS,
  getUsage,
  resetUsage,
} from './register';
export type { LocalApi, RegisterLocalApiOptions } from './register';
