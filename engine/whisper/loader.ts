import type * as OrtModule from 'onnxruntime-web';
import { withFloatArithmetic } from '../onnx/float-arithmetic';
import { withExternalInitializers, type ModelWithData } from '../onnx/protobuf';
import { patchWhisperDecoder, patchWhisperEncoder, type LogitsWeight, type PatchedModel } from './patches';
import type { LoadProgress } from '../runtime/model-files';
import { WhisperModel } from './model';
import { WhisperVocabulary, type GenerationConfig } from './tokenizer';

/**
 * The one way a Whisper model is loaded, by the engine, the tests and the bench alike: its files from a
 * source, the encoder patched as the engine runs it, the decoder patched by WhisperModel.create.
 */

/** Where a model's files come from: ModelFiles (fetched, checked, cached) in the browser, the disk in Node. */
export interface ModelFileSource {
  bytes(path: string, onProgress?: LoadProgress): Promise<Uint8Array>;
  json<T>(path: string, onProgress?: LoadProgress): Promise<T>;
}

export interface WhisperFiles {
  encoder: Uint8Array;
  decoder: Uint8Array;
  tokenizer: object;
  tokenizerConfig: object;
  generation: GenerationConfig;
  /** config.json: the decoder's layers, heads and width, read by WhisperModel.create, and the encoder's heads. */
  config: Parameters<typeof WhisperModel.create>[5] & { encoder_attention_heads: number };
}

export interface WhisperLoadOptions {
  /** Intermediate encoder tensors exposed beside its output (patchWhisperEncoder's extraOutputs); fetched only when asked for. */
  extraOutputs?: readonly string[];
  /** How the decoder holds its logits weight (patchWhisperDecoder's LogitsWeight; default 'float'). */
  logitsWeight?: LogitsWeight;
  /** The graphs whose integer products become float ones (withFloatArithmetic); default none. */
  floatArithmetic?: readonly WhisperGraph[];
}

export type WhisperGraph = 'encoder' | 'decoder';

/** A model's files in transformers.js's layout (q8 encoder, merged q8 decoder), relative to the models folder. */
export function whisperPaths(model: string): Record<keyof WhisperFiles, string> {
  return {
    encoder: `${model}/onnx/encoder_model_quantized.onnx`,
    decoder: `${model}/onnx/decoder_model_merged_quantized.onnx`,
    tokenizer: `${model}/tokenizer.json`,
    tokenizerConfig: `${model}/tokenizer_config.json`,
    generation: `${model}/generation_config.json`,
    config: `${model}/config.json`,
  };
}

/** Reads every file of `model` from `source`, in parallel. */
export async function fetchWhisperFiles(source: ModelFileSource, model: string, onProgress?: LoadProgress): Promise<WhisperFiles> {
  const paths = whisperPaths(model);
  const [encoder, decoder, tokenizer, tokenizerConfig, generation, config] = await Promise.all([
    source.bytes(paths.encoder, onProgress),
    source.bytes(paths.decoder, onProgress),
    source.json<object>(paths.tokenizer, onProgress),
    source.json<object>(paths.tokenizerConfig, onProgress),
    source.json<GenerationConfig>(paths.generation, onProgress),
    source.json<WhisperFiles['config']>(paths.config, onProgress),
  ]);
  return { encoder, decoder, tokenizer, tokenizerConfig, generation, config };
}

/** The model's sessions and vocabulary from its files; the encoder accepts windows shorter than 30 s. */
export async function createWhisper(
  ort: typeof OrtModule,
  files: WhisperFiles,
  sessionOptions: OrtModule.InferenceSession.SessionOptions,
  options: WhisperLoadOptions = {},
): Promise<WhisperModel> {
  const vocab = new WhisperVocabulary(files.tokenizer, files.tokenizerConfig, files.generation);
  // Each patched graph is made just before its session and dropped after it. The weights stay in the
  // fetched bytes: the graphs name them as external files that view those bytes, so the patches copy
  // graphs only, never the weights.
  const arithmetic = (graph: WhisperGraph, bytes: Uint8Array): ModelWithData => {
    const external = withExternalInitializers(bytes);
    return options.floatArithmetic?.includes(graph) ? withFloatArithmetic(external) : external;
  };
  const encoder = (): PatchedModel => {
    const { model, externalData } = arithmetic('encoder', files.encoder);
    const attentionHeads = files.config.encoder_attention_heads;
    return { model: patchWhisperEncoder(model, { dynamicFrames: true, extraOutputs: [...(options.extraOutputs ?? [])], attentionHeads }), externalData };
  };
  const decoder = () => patchWhisperDecoder(arithmetic('decoder', files.decoder), { logitsWeight: options.logitsWeight, specialFrom: vocab.eot });
  return WhisperModel.create(ort, encoder, decoder, vocab, files.generation, files.config, sessionOptions);
}

/** fetchWhisperFiles, then createWhisper. */
export async function loadWhisper(
  ort: typeof OrtModule,
  source: ModelFileSource,
  model: string,
  sessionOptions: OrtModule.InferenceSession.SessionOptions,
  options: WhisperLoadOptions = {},
): Promise<WhisperModel> {
  return createWhisper(ort, await fetchWhisperFiles(source, model), sessionOptions, options);
}
