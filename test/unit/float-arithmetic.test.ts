import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../config/paths';
import { encodeClip, modelFolder, nodeOrt } from '../../bench/bias-set/node-model';
import { withFloatArithmetic } from '../../engine/onnx/float-arithmetic';
import { ATTRIBUTE, GRAPH, NODE, initializerValues, listGraph, parseModel, payload, readFields, viewInitializer, viewNode, type Field } from '../../engine/onnx/protobuf';
import { sessionOptions } from '../../engine/runtime/backend';
import { loadWhisper } from '../../engine/whisper/loader';
import { patchWhisperEncoder } from '../../engine/whisper/patches';
import { logMelSpectrogram, N_MELS } from '../../engine/whisper/features';
import { loadEvalClip } from './helpers/audio';
import { inputsBeforeTheirNodes } from './helpers/graph-order';
import { VAD_MODEL_PATH } from '../../engine/vad/silero';

ort.env.wasm.numThreads = 1;

const model = (path: string): Uint8Array => new Uint8Array(readFileSync(join(ROOT, 'public/models', path)));
const INTEGER_OPS = ['MatMulInteger', 'ConvInteger', 'DynamicQuantizeLinear'];
const CONV1 = '/conv1/Conv_output_0quant_scaled_output'; // the first convolution before its bias, in both graphs

const opCount = (bytes: Uint8Array, op: string) => listGraph(bytes).nodes.filter((n) => n.opType === op).length;

/** Every node's op type, in the graphs inside nodes (an If's branches) too. */
function allOpTypes(graphFields: Field[]): string[] {
  return graphFields.filter((f) => f.num === GRAPH.node).map(viewNode).flatMap((n) => [
    n.opType,
    ...n.fields
      .filter((f) => f.num === NODE.attribute)
      .flatMap((a) => readFields(payload(a)).filter((x) => x.num === ATTRIBUTE.g))
      .flatMap((g) => allOpTypes(readFields(payload(g)))),
  ]);
}

describe('withFloatArithmetic on whisper-tiny', () => {
  it('leaves no integer product in the encoder: one DequantizeLinear per stored weight, in topological order', () => {
    const q8 = model('whisper-tiny/onnx/encoder_model_quantized.onnx');
    const float = withFloatArithmetic({ model: q8, externalData: [] }).model;
    for (const op of INTEGER_OPS) expect(opCount(float, op)).toBe(0);
    expect(opCount(float, 'DequantizeLinear')).toBe(opCount(q8, 'MatMulInteger') + opCount(q8, 'ConvInteger'));
    expect(inputsBeforeTheirNodes(listGraph(float))).toEqual([]);
  });

  it('computes the first convolution in floats: what a float convolution of the dequantized weight gives, unlike the q8 export', async () => {
    const q8 = model('whisper-tiny/onnx/encoder_model_quantized.onnx');
    const float = withFloatArithmetic({ model: q8, externalData: [] }).model;
    const frames = 400;
    const full = logMelSpectrogram(loadEvalClip('en/jfk.flac').subarray(0, 16_000 * 4), frames);
    const run = async (bytes: Uint8Array) => {
      const session = await ort.InferenceSession.create(patchWhisperEncoder(bytes, { dynamicFrames: true, extraOutputs: [CONV1] }));
      const out = await session.run({ input_features: new ort.Tensor('float32', full, [1, N_MELS, frames]) });
      return out[CONV1]!.data as Float32Array;
    };
    // the reference: (q - zero point) x scale, then a plain convolution (kernel 3, padding 1) here
    const dequantize = listGraph(float).nodes.find((n) => n.opType === 'DequantizeLinear' && n.inputs[0] === 'conv1.weight_quantized')!;
    const inits = new Map(parseModel(float).graphFields.filter((f) => f.num === GRAPH.initializer).map(viewInitializer).map((i) => [i.name, i]));
    const [q, scale, zero] = dequantize.inputs.map((n) => initializerValues(inits.get(n)!)!) as [Uint8Array, Float32Array, Uint8Array];
    const channels = 384;
    const want = new Float32Array(channels * frames);
    for (let o = 0; o < channels; o++) {
      for (let t = 0; t < frames; t++) {
        let sum = 0;
        for (let c = 0; c < N_MELS; c++) {
          for (let k = 0; k < 3; k++) {
            const at = t + k - 1;
            if (at < 0 || at >= frames) continue;
            sum += (q[(o * N_MELS + c) * 3 + k]! - zero[0]!) * scale[0]! * full[c * frames + at]!;
          }
        }
        want[o * frames + t] = sum;
      }
    }
    const error = (got: Float32Array) => got.reduce((m, v, i) => Math.max(m, Math.abs(v - want[i]!)), 0);
    const floatError = error(await run(float));
    const integerError = error(await run(q8));
    expect(floatError).toBeLessThan(1e-3);
    expect(integerError).toBeGreaterThan(20 * floatError);
  }, 60_000);

  it('puts each DequantizeLinear of the merged decoder in its top graph, beside the weights both branches read', () => {
    const q8 = model('whisper-tiny/onnx/decoder_model_merged_quantized.onnx');
    const float = withFloatArithmetic({ model: q8, externalData: [] }).model;
    const top = listGraph(float);
    const weights = new Set(top.initializers.map((i) => i.name));
    const dequantizers = top.nodes.filter((n) => n.opType === 'DequantizeLinear');
    expect(dequantizers.length).toBeGreaterThan(0);
    expect(dequantizers.every((n) => weights.has(n.inputs[0]!))).toBe(true);
    // the top graph's only quantizer (of the encoder's output, for the cross-attention) has no reader left
    expect(top.nodes.map((n) => n.opType)).not.toContain('DynamicQuantizeLinear');
    const ops = allOpTypes(parseModel(float).graphFields);
    expect(ops.filter((op) => op === 'MatMul').length).toBeGreaterThan(opCount(q8, 'MatMul'));
    for (const op of INTEGER_OPS) expect(ops).not.toContain(op);
  });

  it('returns a model without integer products as it was', () => {
    const silero = { model: model(VAD_MODEL_PATH), externalData: [] };
    expect(withFloatArithmetic(silero)).toBe(silero);
  });

  it("transcribes jfk.flac with both graphs in floats, as the engine loads them for WebGPU", async () => {
    const whisper = await loadWhisper(nodeOrt(), modelFolder(), 'whisper-tiny', sessionOptions('wasm'), { logitsWeight: 'float', floatArithmetic: ['encoder', 'decoder'] });
    const clip = await encodeClip(whisper, loadEvalClip('en/jfk.flac'));
    const pass = await whisper.generate(clip.encoded, { language: 'en', temperature: 0, wantAttention: false, audioSeconds: clip.seconds });
    const text = whisper.vocab.decode(pass.tokens.map((t) => t.id).filter((id) => whisper.vocab.isText(id)));
    expect(text.toLowerCase()).toContain('ask not what your country can do for you');
  }, 120_000);
});
