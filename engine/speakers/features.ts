import type * as OrtModule from 'onnxruntime-web';
import { withExternalInitializers } from '../onnx/protobuf';
import { createSession } from '../runtime/backend';
import { patchWhisperEncoder } from '../whisper/patches';
import { SPEAKER_FEATURE_TENSOR, SPEAKER_MODEL_HEADS } from './constants';

type Ort = typeof OrtModule;

/**
 * A window's speaker features: whisper-base's encoder cut down to its first two blocks, run on the
 * diarizer's own log-mel windows (whatever model transcribes).
 */
export class SpeakerFeatureSource {
  private constructor(
    private readonly ort: Ort,
    private readonly truncated: OrtModule.InferenceSession,
  ) {}

  static async create(ort: Ort, baseEncoderBytes: () => Promise<Uint8Array>, options: OrtModule.InferenceSession.SessionOptions): Promise<SpeakerFeatureSource> {
    const { model, externalData } = withExternalInitializers(await baseEncoderBytes());
    const truncated = { dynamicFrames: true, extraOutputs: [SPEAKER_FEATURE_TENSOR], extraOutputsOnly: true, attentionHeads: SPEAKER_MODEL_HEADS };
    const session = await createSession(ort, () => ({ model: patchWhisperEncoder(model, truncated), externalData }), options);
    return new SpeakerFeatureSource(ort, session);
  }

  /** The window's features [1, positions, 512]; the caller disposes the tensor. */
  async features(mel: Float32Array, melFrames: number): Promise<OrtModule.Tensor> {
    const input = new this.ort.Tensor('float32', mel, [1, 80, melFrames]);
    const out = await this.truncated.run({ input_features: input }, [SPEAKER_FEATURE_TENSOR]);
    input.dispose();
    return out[SPEAKER_FEATURE_TENSOR]!;
  }

  async release(): Promise<void> {
    await this.truncated.release();
  }
}
