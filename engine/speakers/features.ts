import type * as OrtModule from 'onnxruntime-web';
import { withExternalInitializers } from '../onnx/protobuf';
import { createSession } from '../runtime/backend';
import { patchWhisperEncoder } from '../whisper/patches';
import type { EncodedWindow, WhisperModel } from '../whisper/model';
import { SPEAKER_FEATURE_TENSOR, SPEAKER_MODEL_HEADS } from './constants';

type Ort = typeof OrtModule;

/**
 * Where a window's speaker features come from: with whisper-base, the transcription's own encoder run
 * exposes them as an extra output (free); with another model, a whisper-base encoder cut down to its
 * first two blocks runs on the same log-mel window.
 */
export class SpeakerFeatureSource {
  private constructor(
    private readonly ort: Ort,
    private readonly truncated: OrtModule.InferenceSession | null,
  ) {}

  static async create(
    ort: Ort,
    whisper: WhisperModel,
    baseEncoderBytes: () => Promise<Uint8Array>,
    options: OrtModule.InferenceSession.SessionOptions,
  ): Promise<SpeakerFeatureSource> {
    if (whisper.hasEncoderOutput(SPEAKER_FEATURE_TENSOR)) return new SpeakerFeatureSource(ort, null);
    const { model, externalData } = withExternalInitializers(await baseEncoderBytes());
    const truncated = { dynamicFrames: true, extraOutputs: [SPEAKER_FEATURE_TENSOR], extraOutputsOnly: true, attentionHeads: SPEAKER_MODEL_HEADS };
    const session = await createSession(ort, () => ({ model: patchWhisperEncoder(model, truncated), externalData }), options);
    return new SpeakerFeatureSource(ort, session);
  }

  /** Extra outputs to ask the transcription encoder for. */
  get encoderOutputs(): string[] {
    return this.truncated ? [] : [SPEAKER_FEATURE_TENSOR];
  }

  /** The window's features [1, positions, 512]; the caller disposes the tensor. */
  async features(encoded: EncodedWindow, mel: Float32Array, melFrames: number): Promise<OrtModule.Tensor> {
    if (!this.truncated) return encoded.extras[SPEAKER_FEATURE_TENSOR]!;
    const input = new this.ort.Tensor('float32', mel, [1, 80, melFrames]);
    const out = await this.truncated.run({ input_features: input }, [SPEAKER_FEATURE_TENSOR]);
    input.dispose();
    return out[SPEAKER_FEATURE_TENSOR]!;
  }

  async release(): Promise<void> {
    await this.truncated?.release();
  }
}
