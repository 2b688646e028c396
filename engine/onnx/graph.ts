/**
 * Minimal ONNX (protobuf wire format) reader/writer, the Whisper encoder patch that lets the encoder
 * run on windows shorter than 30 s, and the decoder patch that lets a pass begin from a window's
 * cross-attention cache. Dependency-free and DOM/Node-agnostic so it runs in a Web Worker.
 *
 * Every field is kept as the exact bytes it was read from; only messages we change are re-encoded, so an
 * unpatched model re-serialises byte-for-byte and big initializers are never decoded.
 */
import { FULL_FRAMES } from '../whisper/features';

// ---------------------------------------------------------------------------------------------------
// Protobuf wire format

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

interface Field {
  num: number;
  wire: number;
  /** The whole encoded field (tag included), a view into the source buffer. */
  bytes: Uint8Array;
  /** Varint value for WIRE_VARINT; payload view for WIRE_LEN; 0 otherwise. */
  value: number | Uint8Array;
}

const utf8Decoder = new TextDecoder();
const utf8Encoder = new TextEncoder();

function readVarint(buf: Uint8Array, cursor: { pos: number }): number {
  let result = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    const b = buf[cursor.pos++];
    if (b === undefined) throw new Error('ONNX protobuf: truncated varint');
    result += (b & 0x7f) * scale;
    if (b < 0x80) return result;
    scale *= 128;
  }
  throw new Error('ONNX protobuf: varint longer than 10 bytes');
}

/** Splits a message into its fields without decoding payloads. */
function readFields(buf: Uint8Array): Field[] {
  const fields: Field[] = [];
  const cursor = { pos: 0 };
  while (cursor.pos < buf.length) {
    const start = cursor.pos;
    const tag = readVarint(buf, cursor);
    const wire = tag % 8;
    const num = Math.floor(tag / 8);
    let value: number | Uint8Array = 0;
    switch (wire) {
      case WIRE_VARINT:
        value = readVarint(buf, cursor);
        break;
      case WIRE_I64:
        cursor.pos += 8;
        break;
      case WIRE_LEN: {
        const len = readVarint(buf, cursor);
        value = buf.subarray(cursor.pos, cursor.pos + len);
        cursor.pos += len;
        break;
      }
      case WIRE_I32:
        cursor.pos += 4;
        break;
      default:
        throw new Error(`ONNX protobuf: unsupported wire type ${wire} at byte ${start}`);
    }
    if (cursor.pos > buf.length) throw new Error('ONNX protobuf: field runs past the end of its message');
    fields.push({ num, wire, bytes: buf.subarray(start, cursor.pos), value });
  }
  return fields;
}

function varintBytes(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** A message under construction: a list of byte chunks concatenated once at the end. */
class Chunks {
  readonly parts: Uint8Array[] = [];
  size = 0;

  push(bytes: Uint8Array): this {
    this.parts.push(bytes);
    this.size += bytes.length;
    return this;
  }

  varint(num: number, value: number | bigint): this {
    return this.push(Uint8Array.from([...varintBytes(num * 8 + WIRE_VARINT), ...varintBytes(value)]));
  }

  bytesField(num: number, payload: Uint8Array): this {
    this.push(Uint8Array.from([...varintBytes(num * 8 + WIRE_LEN), ...varintBytes(payload.length)]));
    return this.push(payload);
  }

  string(num: number, text: string): this {
    return this.bytesField(num, utf8Encoder.encode(text));
  }

  /** A nested message without copying its chunks. */
  message(num: number, inner: Chunks): this {
    this.push(Uint8Array.from([...varintBytes(num * 8 + WIRE_LEN), ...varintBytes(inner.size)]));
    for (const part of inner.parts) this.push(part);
    return this;
  }

  concat(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const part of this.parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }
}

function payload(field: Field): Uint8Array {
  if (!(field.value instanceof Uint8Array)) throw new Error(`ONNX protobuf: field ${field.num} is not length-delimited`);
  return field.value;
}

function str(field: Field): string {
  return utf8Decoder.decode(payload(field));
}

function int64(value: number): number {
  return value >= 2 ** 63 ? value - 2 ** 64 : value;
}

/** Repeated int64, packed or not. */
function readInt64s(fields: Field[], num: number): number[] {
  const out: number[] = [];
  for (const f of fields) {
    if (f.num !== num) continue;
    if (f.wire === WIRE_VARINT) out.push(int64(f.value as number));
    else if (f.wire === WIRE_LEN) {
      const buf = payload(f);
      const cursor = { pos: 0 };
      while (cursor.pos < buf.length) out.push(int64(readVarint(buf, cursor)));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// ONNX field numbers (onnx.proto3)

const MODEL = { opsetImport: 8, graph: 7 } as const;
const OPSET = { domain: 1, version: 2 } as const;
const GRAPH = { node: 1, initializer: 5, input: 11, output: 12, valueInfo: 13 } as const;
const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 } as const;
const ATTRIBUTE = { name: 1, g: 6, graphs: 11 } as const;
const TENSOR = { dims: 1, dataType: 2, name: 8, rawData: 9 } as const;
const VALUE_INFO = { name: 1, type: 2 } as const;
const TYPE = { tensorType: 1 } as const;
const TENSOR_TYPE = { elemType: 1, shape: 2 } as const;
const SHAPE = { dim: 1 } as const;
const DIM = { value: 1, param: 2 } as const;

const DATA_TYPE_FLOAT = 1;
const DATA_TYPE_INT64 = 7;

// ---------------------------------------------------------------------------------------------------
// Decoded views of the parts of a graph we look at

interface NodeView {
  field: Field;
  fields: Field[];
  name: string;
  opType: string;
  domain: string;
  inputs: string[];
  outputs: string[];
  hasSubgraph: boolean;
}

interface InitializerView {
  field: Field;
  name: string;
  dims: number[];
  dataType: number;
}

/** A tensor dimension: a number, a symbolic name, or null when unknown. */
export type Dim = number | string | null;

interface ValueInfoView {
  field: Field;
  name: string;
  /** 0 when the value is not a tensor or its type is absent. */
  elemType: number;
  /** null when the shape is absent (rank unknown). */
  dims: Dim[] | null;
}

function viewNode(field: Field): NodeView {
  const fields = readFields(payload(field));
  const view: NodeView = { field, fields, name: '', opType: '', domain: '', inputs: [], outputs: [], hasSubgraph: false };
  for (const f of fields) {
    if (f.num === NODE.input) view.inputs.push(str(f));
    else if (f.num === NODE.output) view.outputs.push(str(f));
    else if (f.num === NODE.name) view.name = str(f);
    else if (f.num === NODE.opType) view.opType = str(f);
    else if (f.num === NODE.domain) view.domain = str(f);
    else if (f.num === NODE.attribute && !view.hasSubgraph) {
      view.hasSubgraph = readFields(payload(f)).some((a) => a.num === ATTRIBUTE.g || a.num === ATTRIBUTE.graphs);
    }
  }
  return view;
}

function viewInitializer(field: Field): InitializerView {
  const fields = readFields(payload(field));
  let name = '';
  let dataType = 0;
  for (const f of fields) {
    if (f.num === TENSOR.name) name = str(f);
    else if (f.num === TENSOR.dataType && f.wire === WIRE_VARINT) dataType = f.value as number;
  }
  return { field, name, dims: readInt64s(fields, TENSOR.dims), dataType };
}

function viewValueInfo(field: Field): ValueInfoView {
  const view: ValueInfoView = { field, name: '', elemType: 0, dims: null };
  for (const f of readFields(payload(field))) {
    if (f.num === VALUE_INFO.name) view.name = str(f);
    if (f.num !== VALUE_INFO.type) continue;
    for (const t of readFields(payload(f))) {
      if (t.num !== TYPE.tensorType) continue;
      for (const tt of readFields(payload(t))) {
        if (tt.num === TENSOR_TYPE.elemType) view.elemType = tt.value as number;
        if (tt.num !== TENSOR_TYPE.shape) continue;
        view.dims = [];
        for (const d of readFields(payload(tt))) {
          if (d.num !== SHAPE.dim) continue;
          let dim: Dim = null;
          for (const dv of readFields(payload(d))) {
            if (dv.num === DIM.value) dim = int64(dv.value as number);
            else if (dv.num === DIM.param) dim = str(dv);
          }
          view.dims.push(dim);
        }
      }
    }
  }
  return view;
}

function encodeValueInfo(name: string, elemType: number, dims: Dim[] | null): Chunks {
  const tensorType = new Chunks();
  if (elemType) tensorType.varint(TENSOR_TYPE.elemType, elemType);
  if (dims) {
    const shape = new Chunks();
    for (const d of dims) {
      const dim = new Chunks();
      if (typeof d === 'number') dim.varint(DIM.value, d);
      else if (typeof d === 'string') dim.string(DIM.param, d);
      shape.message(SHAPE.dim, dim);
    }
    tensorType.message(TENSOR_TYPE.shape, shape);
  }
  const type = new Chunks().message(TYPE.tensorType, tensorType);
  return new Chunks().string(VALUE_INFO.name, name).message(VALUE_INFO.type, type);
}

function encodeInt64Initializer(name: string, values: number[]): Chunks {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true));
  return new Chunks().varint(TENSOR.dims, values.length).varint(TENSOR.dataType, DATA_TYPE_INT64).string(TENSOR.name, name).bytesField(TENSOR.rawData, raw);
}

function encodeNode(opType: string, name: string, inputs: string[], outputs: string[]): Chunks {
  const node = new Chunks();
  for (const i of inputs) node.string(NODE.input, i);
  for (const o of outputs) node.string(NODE.output, o);
  return node.string(NODE.name, name).string(NODE.opType, opType);
}

/** The node with one input name replaced; every other field keeps its bytes. */
function renameNodeInput(node: NodeView, from: string, to: string): Chunks {
  const out = new Chunks();
  for (const f of node.fields) {
    if (f.num === NODE.input && str(f) === from) out.string(NODE.input, to);
    else out.push(f.bytes);
  }
  return out;
}

interface ParsedModel {
  modelFields: Field[];
  graphField: Field;
  graphFields: Field[];
}

function parseModel(model: Uint8Array): ParsedModel {
  const modelFields = readFields(model);
  const graphField = modelFields.find((f) => f.num === MODEL.graph && f.wire === WIRE_LEN);
  if (!graphField) throw new Error('Not an ONNX model: ModelProto.graph not found');
  return { modelFields, graphField, graphFields: readFields(payload(graphField)) };
}

function defaultOpset(modelFields: Field[]): number {
  for (const f of modelFields) {
    if (f.num !== MODEL.opsetImport) continue;
    let domain = '';
    let version = 0;
    for (const o of readFields(payload(f))) {
      if (o.num === OPSET.domain) domain = str(o);
      if (o.num === OPSET.version) version = o.value as number;
    }
    if (domain === '' || domain === 'ai.onnx') return version;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------------
// Public API

export interface GraphValue {
  name: string;
  /** ONNX TensorProto.DataType (1 = float, 7 = int64, ...); 0 if not declared. */
  elemType: number;
  dims: Dim[] | null;
}

export interface GraphListing {
  inputs: GraphValue[];
  outputs: GraphValue[];
  nodes: { name: string; opType: string; inputs: string[]; outputs: string[] }[];
  initializers: { name: string; dims: number[]; dataType: number }[];
}

/** Inputs, outputs, nodes and initializers of a model's main graph (for tests and debugging). */
export function listGraph(model: Uint8Array): GraphListing {
  const { graphFields } = parseModel(model);
  const listing: GraphListing = { inputs: [], outputs: [], nodes: [], initializers: [] };
  for (const f of graphFields) {
    if (f.num === GRAPH.node) {
      const { name, opType, inputs, outputs } = viewNode(f);
      listing.nodes.push({ name, opType, inputs, outputs });
    } else if (f.num === GRAPH.initializer) {
      const { name, dims, dataType } = viewInitializer(f);
      listing.initializers.push({ name, dims, dataType });
    } else if (f.num === GRAPH.input || f.num === GRAPH.output) {
      const { name, elemType, dims } = viewValueInfo(f);
      (f.num === GRAPH.input ? listing.inputs : listing.outputs).push({ name, elemType, dims });
    }
  }
  return listing;
}

/** Reads and writes a model back without changes; the result equals the input byte-for-byte. */
export function roundTripModel(model: Uint8Array): Uint8Array {
  const { modelFields, graphFields } = parseModel(model);
  return modelWithGraph(modelFields, graphChunks(graphFields));
}

/** The model's bytes with its graph replaced by `graph`; every other field as it was read. */
function modelWithGraph(modelFields: Field[], graph: Chunks): Uint8Array {
  const out = new Chunks();
  for (const f of modelFields) {
    if (f.num === MODEL.graph) out.message(MODEL.graph, graph);
    else out.push(f.bytes);
  }
  return out.concat();
}

function graphChunks(fields: Field[]): Chunks {
  const out = new Chunks();
  for (const f of fields) out.push(f.bytes);
  return out;
}

export interface PatchWhisperEncoderOptions {
  /** Slice the positional embedding to the actual frame count so input_features may be [1, n_mels, T < 3000]. */
  dynamicFrames: boolean;
  /** Intermediate tensors to expose as extra graph outputs, e.g. '/layers.1/Add_1_output_0'. */
  extraOutputs?: string[];
  /**
   * Keep only `extraOutputs` as graph outputs: nodes and initializers they do not need are removed.
   * onnxruntime runs every node whatever is fetched, so this is how an early block costs only itself.
   */
  extraOutputsOnly?: boolean;
}

/** Positions of Whisper's 30 s window after the stride-2 convolution, and mel frames before it. */
const WHISPER_FRAMES = FULL_FRAMES;
const WHISPER_POSITIONS = FULL_FRAMES / 2;
const PREFIX = '/localscribe/pos_slice';

/**
 * Patches a Whisper encoder ONNX model (transformers.js / optimum export) so that it accepts
 * input_features [1, n_mels, T] for any even T ≤ 3000, drops the encoder_attentions.* outputs and can
 * expose intermediate tensors. Throws an Error naming what it could not find in a non-Whisper graph.
 */
export function patchWhisperEncoder(model: Uint8Array, options: PatchWhisperEncoderOptions): Uint8Array {
  const { modelFields, graphFields } = parseModel(model);

  const nodes: NodeView[] = [];
  const initializers = new Map<string, InitializerView>();
  const valueInfos = new Map<string, ValueInfoView>();
  const outputs: ValueInfoView[] = [];
  const inputs: ValueInfoView[] = [];
  for (const f of graphFields) {
    if (f.num === GRAPH.node) nodes.push(viewNode(f));
    else if (f.num === GRAPH.initializer) {
      const init = viewInitializer(f);
      initializers.set(init.name, init);
    } else if (f.num === GRAPH.valueInfo) {
      const vi = viewValueInfo(f);
      valueInfos.set(vi.name, vi);
    } else if (f.num === GRAPH.output) outputs.push(viewValueInfo(f));
    else if (f.num === GRAPH.input) inputs.push(viewValueInfo(f));
  }

  const inputFeatures = inputs.find((i) => i.name === 'input_features');
  if (!inputFeatures) throw new Error('Not a Whisper encoder: graph input "input_features" not found');
  if (!outputs.some((o) => o.name === 'last_hidden_state')) {
    throw new Error('Not a Whisper encoder: graph output "last_hidden_state" not found');
  }

  // Graph-level edits, keyed by the original field they replace or precede.
  const replaced = new Map<Field, Chunks | null>();
  const insertBefore = new Map<Field, Chunks[]>();
  const newInitializers: Chunks[] = [];
  const newOutputs: Chunks[] = [];
  /** Existing tensors the inserted nodes read (they are not in `nodes`). */
  const insertedReads: string[] = [];

  if (options.dynamicFrames) {
    if (defaultOpset(modelFields) < 10) throw new Error('Whisper encoder patch needs ONNX opset >= 10 (Slice with inputs)');
    const { add, posName, otherName, axis } = findPositionalAdd(nodes, initializers);
    const shape = `${PREFIX}/shape`;
    const length = `${PREFIX}/length`;
    const sliced = `${PREFIX}/positions`;
    const idx = `${PREFIX}/idx`;
    const starts = `${PREFIX}/starts`;
    const axes = `${PREFIX}/axes`;
    newInitializers.push(encodeInt64Initializer(idx, [1]), encodeInt64Initializer(starts, [0]), encodeInt64Initializer(axes, [axis]));
    insertBefore.set(add.field, [
      encodeNode('Shape', `${PREFIX}/Shape`, [otherName], [shape]),
      encodeNode('Gather', `${PREFIX}/Gather`, [shape, idx], [length]),
      encodeNode('Slice', `${PREFIX}/Slice`, [posName, starts, length, axes], [sliced]),
    ]);
    replaced.set(add.field, renameNodeInput(add, posName, sliced));
    insertedReads.push(posName, otherName);

    // Static 3000/1500 sizes would contradict a shorter window: relax them on the graph's inputs and
    // outputs, and drop value_info entries that carry them (ORT re-infers those).
    for (const vi of [...inputs, ...outputs]) {
      const relaxed = relaxWindowDims(vi.dims);
      if (relaxed !== vi.dims) replaced.set(vi.field, encodeValueInfo(vi.name, vi.elemType, relaxed));
    }
    for (const vi of valueInfos.values()) {
      if (relaxWindowDims(vi.dims) !== vi.dims) replaced.set(vi.field, null);
    }
  }

  const extra = options.extraOutputs ?? [];
  if (options.extraOutputsOnly && extra.length === 0) throw new Error('Whisper encoder patch: extraOutputsOnly needs extraOutputs');
  for (const o of outputs) {
    if (o.name.startsWith('encoder_attentions.') || options.extraOutputsOnly) replaced.set(o.field, null);
  }

  if (extra.length > 0) {
    const produced = new Set(nodes.flatMap((n) => n.outputs));
    const declared = new Set(outputs.map((o) => o.name));
    for (const name of extra) {
      if (!produced.has(name)) throw new Error(`Whisper encoder patch: no node produces "${name}"`);
      if (declared.has(name) && !options.extraOutputsOnly) continue;
      const vi = valueInfos.get(name);
      // Without value_info ORT still needs an element type; every activation of the encoder is float.
      const elemType = vi?.elemType || 1;
      const dims = vi ? relaxWindowDims(vi.dims) : null;
      newOutputs.push(encodeValueInfo(name, elemType, dims));
    }
  }

  const keptOutputs = new Set(
    outputs.filter((o) => replaced.get(o.field) !== null).map((o) => o.name).concat(extra),
  );
  const dead = new Set(deadNodes(nodes, keptOutputs));
  for (const node of dead) replaced.set(node.field, null);
  if (dead.size > 0) {
    // initializers only dead nodes read would still be loaded into memory: drop them too
    const read = new Set(nodes.filter((n) => !dead.has(n)).flatMap((n) => n.inputs));
    for (const name of insertedReads) read.add(name);
    for (const init of initializers.values()) if (!read.has(init.name) && !keptOutputs.has(init.name)) replaced.set(init.field, null);
  }

  const graph = new Chunks();
  let lastKind = -1;
  const flushAfter = (kind: number): void => {
    if (lastKind === GRAPH.initializer && kind !== GRAPH.initializer) for (const c of newInitializers.splice(0)) graph.message(GRAPH.initializer, c);
    if (lastKind === GRAPH.output && kind !== GRAPH.output) for (const c of newOutputs.splice(0)) graph.message(GRAPH.output, c);
  };
  for (const f of graphFields) {
    flushAfter(f.num);
    lastKind = f.num;
    for (const c of insertBefore.get(f) ?? []) graph.message(GRAPH.node, c);
    const edit = replaced.get(f);
    if (edit === undefined) graph.push(f.bytes);
    else if (edit !== null) graph.message(f.num, edit);
  }
  for (const c of newInitializers) graph.message(GRAPH.initializer, c);
  for (const c of newOutputs) graph.message(GRAPH.output, c);

  return modelWithGraph(modelFields, graph);
}

function findPositionalAdd(
  nodes: NodeView[],
  initializers: Map<string, InitializerView>,
): { add: NodeView; posName: string; otherName: string; axis: number } {
  const matches: { add: NodeView; posName: string; otherName: string; axis: number }[] = [];
  for (const node of nodes) {
    if (node.opType !== 'Add' || node.domain !== '' || node.inputs.length !== 2) continue;
    node.inputs.forEach((name, i) => {
      const dims = initializers.get(name)?.dims;
      if (!dims) return;
      const axis = dims.length === 2 ? 0 : dims.length === 3 && dims[0] === 1 ? 1 : -1;
      if (axis < 0 || dims[axis] !== WHISPER_POSITIONS) return;
      matches.push({ add: node, posName: name, otherName: node.inputs[1 - i] ?? '', axis });
    });
  }
  if (matches.length === 0) {
    throw new Error(`Not a Whisper encoder: no Add with a [${WHISPER_POSITIONS}, d] positional-embedding initializer found`);
  }
  if (matches.length > 1) {
    throw new Error(`Whisper encoder patch: ${matches.length} Adds with a ${WHISPER_POSITIONS}-position initializer; expected one`);
  }
  return matches[0]!;
}

/** The dims with static 3000/1500 window sizes made symbolic; the same array if there were none. */
function relaxWindowDims(dims: Dim[] | null): Dim[] | null {
  if (!dims?.some((d) => d === WHISPER_FRAMES || d === WHISPER_POSITIONS)) return dims;
  return dims.map((d) => (d === WHISPER_FRAMES ? 'frames' : d === WHISPER_POSITIONS ? 'positions' : d));
}

/** Nodes none of whose outputs reach a kept graph output (none if any node carries a subgraph). */
function deadNodes(nodes: NodeView[], keptOutputs: Set<string>): NodeView[] {
  if (nodes.some((n) => n.hasSubgraph)) return [];
  const needed = new Set(keptOutputs);
  const dead: NodeView[] = [];
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    if (node.outputs.some((o) => needed.has(o))) for (const input of node.inputs) needed.add(input);
    else dead.push(node);
  }
  return dead;
}

/** Prefix of every name patchWhisperDecoder adds to the graph. */
const PATCH = '/localscribe/patch';

/** The decoder input added by patchWhisperDecoder: the first position whose logits are computed. */
export const LOGITS_FROM = 'logits_from';

/**
 * The decoder input added by patchWhisperDecoder: the cached branch's additive self-attention mask,
 * float [new tokens, past + new tokens] (0 where a new token may see a key, -1e9 where not).
 */
export const SELF_MASK = 'self_mask';

/** The decoder input added by patchWhisperDecoder: the cached branch's position of each new token, int64 [new tokens]. */
export const TOKEN_POSITIONS = 'token_positions';

/**
 * Patches a Whisper merged decoder (transformers.js / optimum export: an If on use_cache_branch):
 * - its cached branch takes its self-attention mask (SELF_MASK) and its tokens' positions
 *   (TOKEN_POSITIONS) as inputs. The export traced that branch with one new token, so it has no mask:
 *   several tokens after a cache (or after an empty one) would each see the tokens after it. A causal
 *   mask lets a pass begin from the window's cross-attention cache with all its prompt tokens at once;
 *   a tree's mask and positions let one run score many continuations of one prefix (model-rank.ts);
 * - both branches compute logits only from position LOGITS_FROM (an int64 [1] input) on: a 120-token
 *   prompt's rows over the 51,865-token vocabulary cost more than the rest of its decoder run.
 */
export function patchWhisperDecoder(model: Uint8Array): Uint8Array {
  const { modelFields, graphFields } = parseModel(model);
  const ifs = graphFields.filter((f) => f.num === GRAPH.node).map(viewNode).filter((n) => n.opType === 'If' && n.inputs[0] === 'use_cache_branch');
  if (ifs.length !== 1) throw new Error('Not a Whisper merged decoder: no If on use_cache_branch');
  const ifNode = ifs[0]!;
  const inputNames = graphFields.filter((f) => f.num === GRAPH.input).map((f) => viewValueInfo(f).name);
  const pastKey = 'past_key_values.0.decoder.key';
  if (!inputNames.includes('input_ids') || !inputNames.includes(pastKey)) throw new Error(`Not a Whisper merged decoder: inputs input_ids and ${pastKey} not found`);

  const name = (part: string) => `${PATCH}/${part}`;
  const initializers = [encodeInt64Initializer(name('end'), [Number.MAX_SAFE_INTEGER]), encodeInt64Initializer(name('axis'), [1])];

  let masked = 0;
  let positioned = 0;
  let sliced = 0;
  const attribute = (field: Field): Chunks | null => {
    const fields = readFields(payload(field));
    const attrName = fields.find((f) => f.num === ATTRIBUTE.name);
    const graph = fields.find((f) => f.num === ATTRIBUTE.g);
    if (!attrName || !graph) return null;
    const cached = str(attrName) === 'then_branch';
    const out = new Chunks();
    for (const f of fields) {
      if (f !== graph) out.push(f.bytes);
      else out.message(ATTRIBUTE.g, patchedBranch(readFields(payload(graph)), cached));
    }
    return out;
  };
  const isPositionSlice = (node: NodeView) => node.opType === 'Slice' && node.name === '/model/decoder/embed_positions/Slice';
  const patchedBranch = (branch: Field[], cached: boolean): Chunks => {
    // what computed the sliced positions' bounds is left with no use once the slice is a Gather
    const views = new Map(branch.filter((f) => f.num === GRAPH.node).map((f) => [f, viewNode(f)]));
    const outputs = new Set(branch.filter((f) => f.num === GRAPH.output).map((f) => viewValueInfo(f).name));
    const after = [...views.values()].map((n) => (cached && isPositionSlice(n) ? { ...n, inputs: [n.inputs[0]!, TOKEN_POSITIONS] } : n));
    const unused = new Set(deadNodes(after, outputs).map((n) => n.field));
    const out = new Chunks();
    for (const f of branch) {
      const node = views.get(f);
      if (!node) {
        out.push(f.bytes);
        continue;
      }
      if (unused.has(f)) continue;
      if (cached && node.opType === 'Softmax' && /\/self_attn\/Softmax$/.test(node.name)) {
        const scores = node.inputs[0]!;
        const maskedScores = `${scores}${PATCH}`;
        out.message(GRAPH.node, encodeNode('Add', `${node.name}${PATCH}`, [scores, SELF_MASK], [maskedScores]));
        out.message(GRAPH.node, renameNodeInput(node, scores, maskedScores));
        masked++;
      } else if (cached && isPositionSlice(node)) {
        // rows past..past+new of the positional embedding, as the export slices them, become rows TOKEN_POSITIONS
        out.message(GRAPH.node, encodeNode('Gather', `${node.name}${PATCH}`, [node.inputs[0]!, TOKEN_POSITIONS], [node.outputs[0]!]));
        positioned++;
      } else if (node.outputs[0] === 'logits' && node.opType === 'MatMul') {
        const hidden = node.inputs[0]!;
        const kept = `${hidden}${PATCH}/from`;
        out.message(GRAPH.node, encodeNode('Slice', `${node.name}${PATCH}/Slice`, [hidden, LOGITS_FROM, name('end'), name('axis')], [kept]));
        out.message(GRAPH.node, renameNodeInput(node, hidden, kept));
        sliced++;
      } else out.push(f.bytes);
    }
    return out;
  };

  const node = new Chunks();
  for (const f of ifNode.fields) {
    const edited = f.num === NODE.attribute ? attribute(f) : null;
    if (edited) node.message(NODE.attribute, edited);
    else node.push(f.bytes);
  }
  if (masked === 0) throw new Error('Whisper decoder patch: no self-attention Softmax in the cached branch');
  if (positioned !== 1) throw new Error(`Whisper decoder patch: expected one positional-embedding Slice in the cached branch, found ${positioned}`);
  if (sliced !== 2) throw new Error(`Whisper decoder patch: expected a MatMul giving the logits in each branch, found ${sliced}`);

  const graph = new Chunks();
  let [initializersPlaced, inputPlaced] = [false, false];
  for (const f of graphFields) {
    if (f.num === GRAPH.initializer && !initializersPlaced) {
      for (const c of initializers) graph.message(GRAPH.initializer, c);
      initializersPlaced = true;
    }
    if (f.num === GRAPH.input && !inputPlaced) {
      graph.message(GRAPH.input, encodeValueInfo(LOGITS_FROM, DATA_TYPE_INT64, [1]));
      graph.message(GRAPH.input, encodeValueInfo(SELF_MASK, DATA_TYPE_FLOAT, ['new', 'keys']));
      graph.message(GRAPH.input, encodeValueInfo(TOKEN_POSITIONS, DATA_TYPE_INT64, ['new']));
      inputPlaced = true;
    }
    if (f === ifNode.field) graph.message(GRAPH.node, node);
    else graph.push(f.bytes);
  }
  if (!initializersPlaced) for (const c of initializers) graph.message(GRAPH.initializer, c);

  return modelWithGraph(modelFields, graph);
}
