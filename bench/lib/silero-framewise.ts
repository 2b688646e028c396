/**
 * Silero VAD as the model is exported: one session run per 512-sample frame, its recurrent state and
 * its 64-sample context carried by hand. The reference that engine/vad/silero.ts's scanned runs
 * (engine/vad/frame-scan.ts) must equal number for number (test/unit/vad.test.ts), and the other side of
 * bench/vad-frames.ts.
 */
import type * as Ort from 'onnxruntime-web';
import { SAMPLE_RATE } from '../../engine/protocol';
import { CONTEXT_SAMPLES, VAD_FRAME_SAMPLES } from '../../engine/vad/silero';
import type { VadLevel } from '../../engine/vad/level';

/** Speech probability of each frame of `audio` (the last one zero-padded), each frame heard at `level`'s gain. */
export async function framewiseProbabilities(ort: typeof Ort, session: Ort.InferenceSession, audio: Float32Array, level: VadLevel | null = null): Promise<Float32Array> {
  const input = new Float32Array(CONTEXT_SAMPLES + VAD_FRAME_SAMPLES);
  const sr = new ort.Tensor('int64', BigInt64Array.of(BigInt(SAMPLE_RATE)), []);
  let state: Ort.Tensor = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  const out = new Float32Array(Math.ceil(audio.length / VAD_FRAME_SAMPLES));
  const frame = new Float32Array(VAD_FRAME_SAMPLES);
  for (let i = 0; i < out.length; i++) {
    frame.fill(0).set(audio.subarray(i * VAD_FRAME_SAMPLES, (i + 1) * VAD_FRAME_SAMPLES));
    const gain = level?.gain(frame) ?? 1;
    input.copyWithin(0, VAD_FRAME_SAMPLES);
    for (let k = 0; k < VAD_FRAME_SAMPLES; k++) input[CONTEXT_SAMPLES + k] = frame[k]! * gain;
    const result = await session.run({ input: new ort.Tensor('float32', input, [1, input.length]), state, sr });
    out[i] = (result.output!.data as Float32Array)[0]!;
    state = result.stateN!;
  }
  return out;
}
