import type * as OrtModule from 'onnxruntime-web';
import { withFloatArithmetic } from '../onnx/float-arithmetic';
import { withExternalInitializers } from '../onnx/protobuf';
import { createSession } from '../runtime/backend';
import { patchWhisperEncoder } from '../whisper/patches';
import type { SpeakerFeatures } from './constants';

type Ort = typeof OrtModule;

/**
 * A window's speaker features: the feature encoder (SPEAKER_ENCODER) cut down to the blocks that give
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
    const external = withExternalInitializers(await encoderBytes());
    const { model, externalData } = floatArithmetic ? withFloatArithmetic(external) : external;
    const truncated = { dynamicFrames: true, extraOutputs: [features.tensor], extraOutputsOnly: true, attentionHeads: features.heads };
    const session = await createSession(ort, () => ({ model: patchWhisperEncoder(model, truncated), externalData }), options);
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
