/**
 * Cuts an ONNX graph down to the nodes that one tensor depends on, so the speaker features of a
 * Whisper encoder's early block cost only that block (whisper-base, block 2: about a third of the
 * encoder) when the transcription model is another one. onnxruntime-web runs every node of a graph
 * whatever outputs are fetched, hence the cut.
 *
 * Works on the protobuf bytes directly: kept fields are copied verbatim, only the model and graph
 * messages are rebuilt. Graphs with subgraphs (If/Loop) are not supported: a Whisper encoder has none.
 */

interface RawField {
  num: number;
  /** The whole encoded field, tag included. */
  bytes: Uint8Array;
  /** Payload of a length-delimited field. */
  payload?: Uint8Array;
}

function varint(buf: Uint8Array, at: { pos: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const b = buf[at.pos++];
    if (b === undefined) throw new Error('ONNX: truncated varint');
    value += (b & 0x7f) * scale;
    if (b < 0x80) return value;
    scale *= 128;
  }
}

function fields(buf: Uint8Array): RawField[] {
  const out: RawField[] = [];
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const start = at.pos;
    const tag = varint(buf, at);
    const wire = tag & 7;
    let payload: Uint8Array | undefined;
    if (wire === 0) varint(buf, at);
    else if (wire === 1) at.pos += 8;
    else if (wire === 5) at.pos += 4;
    else if (wire === 2) {
      const len = varint(buf, at);
      payload = buf.subarray(at.pos, at.pos + len);
      at.pos += len;
    } else throw new Error(`ONNX: unsupported wire type ${wire}`);
    if (at.pos > buf.length) throw new Error('ONNX: field runs past the end of its message');
    out.push({ num: Math.floor(tag / 8), bytes: buf.subarray(start, at.pos), payload });
  }
  return out;
}

const text = new TextDecoder();
const strings = (msg: Uint8Array, num: number): string[] =>
  fields(msg)
    .filter((f) => f.num === num && f.payload)
    .map((f) => text.decode(f.payload));

function lengthPrefixed(num: number, parts: Uint8Array[]): Uint8Array[] {
  const size = parts.reduce((n, p) => n + p.length, 0);
  const head: number[] = [];
  for (let v = num * 8 + 2, first = true; first || v > 0; first = false) {
    head.push((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v = Math.floor(v / 128);
  }
  for (let v = size, first = true; first || v > 0; first = false) {
    head.push((v % 128) | (v >= 0x80 ? 0x80 : 0));
    v = Math.floor(v / 128);
  }
  return [Uint8Array.from(head), ...parts];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

// ModelProto.graph; GraphProto: node, initializer, input, output, value_info; NodeProto: input, output;
// TensorProto.name; ValueInfoProto.name.
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const GRAPH_OUTPUT = 12;
const GRAPH_VALUE_INFO = 13;
const NODE_INPUT = 1;
const NODE_OUTPUT = 2;
const TENSOR_NAME = 8;
const VALUE_INFO_NAME = 1;

/**
 * Returns a model whose only output is `output` (an intermediate tensor, e.g. '/layers.1/Add_1_output_0'),
 * holding only the nodes and initializers it depends on. Throws when no node produces `output`.
 */
export function truncateGraph(model: Uint8Array, output: string): Uint8Array {
  const modelFields = fields(model);
  const graphField = modelFields.find((f) => f.num === MODEL_GRAPH);
  if (!graphField?.payload) throw new Error('ONNX: model has no graph');
  const graphFields = fields(graphField.payload);

  const nodes = graphFields
    .filter((f) => f.num === GRAPH_NODE)
    .map((f) => ({ field: f, inputs: strings(f.payload!, NODE_INPUT), outputs: strings(f.payload!, NODE_OUTPUT) }));
  const producer = new Map<string, number>();
  nodes.forEach((n, i) => n.outputs.forEach((o) => producer.set(o, i)));
  if (!producer.has(output)) throw new Error(`ONNX: no node produces "${output}"`);

  const keep = new Set<number>();
  const needed = new Set<string>();
  const stack = [output];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (needed.has(name)) continue;
    needed.add(name);
    const i = producer.get(name);
    if (i === undefined || keep.has(i)) continue;
    keep.add(i);
    stack.push(...nodes[i]!.inputs.filter((x) => x !== ''));
  }

  const outputInfo = graphFields.find(
    (f) => f.num === GRAPH_VALUE_INFO && strings(f.payload!, VALUE_INFO_NAME)[0] === output,
  );
  const outputField = outputInfo
    ? lengthPrefixed(GRAPH_OUTPUT, [outputInfo.payload!])
    : lengthPrefixed(GRAPH_OUTPUT, lengthPrefixed(VALUE_INFO_NAME, [new TextEncoder().encode(output)]));

  const graphParts: Uint8Array[] = [];
  let nodeIndex = 0;
  for (const f of graphFields) {
    if (f.num === GRAPH_NODE) {
      if (keep.has(nodeIndex++)) graphParts.push(f.bytes);
    } else if (f.num === GRAPH_INITIALIZER) {
      if (needed.has(strings(f.payload!, TENSOR_NAME)[0] ?? '')) graphParts.push(f.bytes);
    } else if (f.num === GRAPH_VALUE_INFO) {
      if (needed.has(strings(f.payload!, VALUE_INFO_NAME)[0] ?? '')) graphParts.push(f.bytes);
    } else if (f.num !== GRAPH_OUTPUT) graphParts.push(f.bytes);
  }
  graphParts.push(...outputField);

  const modelParts: Uint8Array[] = [];
  for (const f of modelFields) {
    if (f.num === MODEL_GRAPH) modelParts.push(...lengthPrefixed(MODEL_GRAPH, graphParts));
    else modelParts.push(f.bytes);
  }
  return concat(modelParts);
}
