/**
 * Silero's graph run over many frames in one session run: an ONNX Scan whose body is the model's own
 * graph, carrying its recurrent state from frame to frame. The numbers are the model's, frame for frame
 * (the same nodes on the same inputs); what goes is onnxruntime-web's cost per run (tensors in and out of
 * its heap, a promise), which was most of a 32 ms frame's VAD time (bench/README.md, "Silero over frames").
 */
import { ATTRIBUTE, Chunks, encodeNode, encodeValueInfo, GRAPH, modelWithGraph, NODE, parseModel, viewValueInfo, DATA_TYPE_FLOAT } from '../onnx/protobuf';

/** The scanned model's tensors: FRAMES [frames, 1, samples] in, PROBABILITIES [frames, 1, 1] and STATE_OUT (the last frame's state) out. */
export const FRAMES = 'frames';
export const PROBABILITIES = 'probabilities';
export const STATE_OUT = 'state_out';

/** AttributeProto.AttributeType GRAPH. */
const ATTRIBUTE_TYPE_GRAPH = 5;

/** The Silero model's own tensor names, found by name or else by position (a re-export may rename them). */
export interface SileroNames {
  input: string;
  state: string;
  sr: string;
  output: string;
  stateOut: string;
}

export function sileroNames(model: Uint8Array): SileroNames {
  const { graphFields } = parseModel(model);
  const inputs = graphFields.filter((f) => f.num === GRAPH.input).map((f) => viewValueInfo(f).name);
  const outputs = graphFields.filter((f) => f.num === GRAPH.output).map((f) => viewValueInfo(f).name);
  if (inputs.length !== 3 || outputs.length !== 2) {
    throw new Error(`Silero VAD model: expected v5's 3 inputs (input, state, sr) and 2 outputs (output, stateN), found ${inputs.length} and ${outputs.length}`);
  }
  const pick = (names: string[], wanted: string, index: number) => (names.includes(wanted) ? wanted : names[index]!);
  return { input: pick(inputs, 'input', 0), state: pick(inputs, 'state', 1), sr: pick(inputs, 'sr', 2), output: pick(outputs, 'output', 0), stateOut: pick(outputs, 'stateN', 1) };
}

/**
 * `model` (Silero v5: input [1, samples], state, sr → output [1, 1], stateN) as a model over a run of
 * frames. The body is the model's graph with the sample rate as an outer-scope input; shapes are left
 * to onnxruntime (the export's declared ranks do not survive the scan's inference).
 */
export function scanOverFrames(model: Uint8Array, names: SileroNames = sileroNames(model)): Uint8Array {
  const { modelFields, graphFields } = parseModel(model);
  const body = new Chunks();
  for (const f of graphFields) if (f.num === GRAPH.node || f.num === GRAPH.initializer) body.push(f.bytes);
  body.string(GRAPH.name, 'silero_frame');
  // a Scan body takes its carried state first, then one slice of each scanned input; it gives the
  // state first, then one slice of each scanned output
  body.message(GRAPH.input, encodeValueInfo(names.state, DATA_TYPE_FLOAT, null)).message(GRAPH.input, encodeValueInfo(names.input, DATA_TYPE_FLOAT, null));
  body.message(GRAPH.output, encodeValueInfo(names.stateOut, DATA_TYPE_FLOAT, null)).message(GRAPH.output, encodeValueInfo(names.output, DATA_TYPE_FLOAT, null));
  const scan = encodeNode('Scan', 'silero_over_frames', [names.state, FRAMES], [STATE_OUT, PROBABILITIES], { num_scan_inputs: 1 });
  scan.message(NODE.attribute, new Chunks().string(ATTRIBUTE.name, 'body').message(ATTRIBUTE.g, body).varint(ATTRIBUTE.type, ATTRIBUTE_TYPE_GRAPH));
  const graph = new Chunks().message(GRAPH.node, scan).string(GRAPH.name, 'silero_over_frames');
  graph.message(GRAPH.input, encodeValueInfo(FRAMES, DATA_TYPE_FLOAT, null));
  for (const f of graphFields) if (f.num === GRAPH.input && viewValueInfo(f).name !== names.input) graph.push(f.bytes);
  graph.message(GRAPH.output, encodeValueInfo(STATE_OUT, DATA_TYPE_FLOAT, null)).message(GRAPH.output, encodeValueInfo(PROBABILITIES, DATA_TYPE_FLOAT, null));
  return modelWithGraph(modelFields, graph);
}
