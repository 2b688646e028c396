import type * as OrtModule from 'onnxruntime-web';
import { withFloatArithmetic } from '../onnx/float-arithmetic';
import { withExternalInitializers, type ModelWithData } from '../onnx/protobuf';
import { createSession } from '../runtime/backend';
import { patchWhisperEncoder } from '../whisper/patches';
import type { SpeakerFeatures } from './constants';

type Ort = typeof OrtModule;

/**
 * A Whisper encoder (its q8 export's bytes) cut down to the blocks that give `tensors`, its only outputs,
 * for any number of mel frames; `floatArithmetic` as for SpeakerFeatureSource.create.
 */
export function cutEncoder(encoderBytes: Uint8Array, tensors: readonly string[], heads: number, floatArithmetic: boolean): ModelWithData {
  const external = withExternalInitializers(encoderBytes);
  const { model, externalData } = floatArithmetic ? withFloatArithmetic(external) : external;
  return { model: patchWhisperEncoder(model, { dynamicFrames: true, extraOutputs: [...tensors], extraOutputsOnly: true, attentionHeads: heads }), externalData };
}

/**
 * A window's speaker features: the feature encoder (SHIPPED_SPEAKER_ENCODER) cut down to the blocks that give
 * them, run on the diarizer's own log-mel windows where no transcription run gave them.
 */
export class SpeakerFeatureSource {
  private constructor(
    private readonly ort: Ort,
    private readonly truncated: OrtModule.InferenceSession,
    private readonly tensor: string,
  ) {}

  /**
   * `floatArithmetic`: multiply in floats as the transcription's encoder does for that model on WASM
   * (FLOAT_ARITHMETIC), so that its features and the cut encoder's are the same numbers.
   */
  static async create(
    ort: Ort,
    encoderBytes: () => Promise<Uint8Array>,
    features: Pick<SpeakerFeatures, 'tensor' | 'heads'>,
    floatArithmetic: boolean,
    options: OrtModule.InferenceSession.SessionOptions,
  ): Promise<SpeakerFeatureSource> {
    const bytes = await encoderBytes();
    const session = await createSession(ort, () => cutEncoder(bytes, [features.tensor], features.heads, floatArithmetic), options);
    return new SpeakerFeatureSource(ort, session, features.tensor);
  }

  /** The window's features [1, positions, channels]; the caller disposes the tensor. */
  async features(mel: Float32Array, melFrames: number): Promise<OrtModule.Tensor> {
    const input = new this.ort.Tensor('float32', mel, [1, 80, melFrames]);
    const out = await this.truncated.run({ input_features: input }, [this.tensor]);
    input.dispose();
    return out[this.tensor]!;
  }

  async release(): Promise<void> {
    await this.truncated.release();
  }
}
