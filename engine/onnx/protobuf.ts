/**
 * Minimal ONNX (protobuf wire format) reader/writer, for the Whisper graph patches
 * (engine/whisper/patches.ts). Dependency-free and DOM/Node-agnostic so it runs in a Web Worker.
 *
 * Every field is kept as the exact bytes it was read from; only messages we change are re-encoded, so an
 * unpatched model re-serialises byte-for-byte and big initializers are never decoded.
 */

// ---------------------------------------------------------------------------------------------------
// Protobuf wire format

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

export interface Field {
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
export function readFields(buf: Uint8Array): Field[] {
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
export class Chunks {
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

export function payload(field: Field): Uint8Array {
  if (!(field.value instanceof Uint8Array)) throw new Error(`ONNX protobuf: field ${field.num} is not length-delimited`);
  return field.value;
}

export function str(field: Field): string {
  return utf8Decoder.decode(payload(field));
}

function int64(value: number): number {
  return value >= 2 ** 63 ? value - 2 ** 64 : value;
}

/** An AttributeProto's `ints`, from its fields. */
export function attributeInts(fields: Field[]): number[] {
  return readInt64s(fields, ATTRIBUTE.ints);
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
export const GRAPH = { node: 1, name: 2, initializer: 5, input: 11, output: 12, valueInfo: 13 } as const;
export const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 } as const;
export const ATTRIBUTE = { name: 1, i: 3, t: 5, g: 6, ints: 8, graphs: 11, type: 20 } as const;
const ATTRIBUTE_TYPE_INT = 2;
const ATTRIBUTE_TYPE_INTS = 7;
const ATTRIBUTE_TYPE_TENSOR = 4;
const TENSOR = { dims: 1, dataType: 2, floatData: 4, int32Data: 5, name: 8, rawData: 9, externalData: 13, dataLocation: 14 } as const;
const STRING_ENTRY = { key: 1, value: 2 } as const;
const DATA_LOCATION_EXTERNAL = 1;
const VALUE_INFO = { name: 1, type: 2 } as const;
const TYPE = { tensorType: 1 } as const;
const TENSOR_TYPE = { elemType: 1, shape: 2 } as const;
const SHAPE = { dim: 1 } as const;
const DIM = { value: 1, param: 2 } as const;

export const DATA_TYPE_FLOAT = 1;
export const DATA_TYPE_UINT8 = 2;
export const DATA_TYPE_INT8 = 3;
export const DATA_TYPE_INT64 = 7;

// ---------------------------------------------------------------------------------------------------
// Decoded views of the parts of a graph we look at

export interface NodeView {
  field: Field;
  fields: Field[];
  name: string;
  opType: string;
  domain: string;
  inputs: string[];
  outputs: string[];
  hasSubgraph: boolean;
}

export interface InitializerView {
  field: Field;
  name: string;
  dims: number[];
  dataType: number;
}

/** A tensor dimension: a number, a symbolic name, or null when unknown. */
export type Dim = number | string | null;

export interface ValueInfoView {
  field: Field;
  name: string;
  /** 0 when the value is not a tensor or its type is absent. */
  elemType: number;
  /** null when the shape is absent (rank unknown). */
  dims: Dim[] | null;
}

export function viewNode(field: Field): NodeView {
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

export function viewInitializer(field: Field): InitializerView {
  const fields = readFields(payload(field));
  let name = '';
  let dataType = 0;
  for (const f of fields) {
    if (f.num === TENSOR.name) name = str(f);
    else if (f.num === TENSOR.dataType && f.wire === WIRE_VARINT) dataType = f.value as number;
  }
  return { field, name, dims: readInt64s(fields, TENSOR.dims), dataType };
}

export function viewValueInfo(field: Field): ValueInfoView {
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

export function encodeValueInfo(name: string, elemType: number, dims: Dim[] | null): Chunks {
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

/**
 * The values of a float, uint8 or int8 initializer, from its raw_data or its typed field (float_data,
 * int32_data); null for other types. Byte-sized raw values are a view into the model's bytes (no copy of
 * a 26 MB embedding at load); floats are copied, as raw_data may sit at an unaligned offset.
 */
export function initializerValues(init: InitializerView, externalData: ModelWithData['externalData'] = []): Float32Array | Uint8Array | Int8Array | null {
  const fields = readFields(payload(init.field));
  const raw = fields.find((f) => f.num === TENSOR.rawData) ?? externalBytes(fields, externalData);
  if (init.dataType === DATA_TYPE_FLOAT) {
    const bytes = raw ? bytesOf(raw) : fields.filter((f) => f.num === TENSOR.floatData && f.wire === WIRE_LEN).map(payload)[0];
    if (!bytes) return fields.some((f) => f.num === TENSOR.floatData) ? null : new Float32Array(0);
    // a copy: the payload is a view that may be unaligned (and a Node Buffer's slice() is no copy)
    return new Float32Array(new Uint8Array(bytes).buffer);
  }
  if (init.dataType !== DATA_TYPE_UINT8 && init.dataType !== DATA_TYPE_INT8) return null;
  if (raw) {
    const bytes = bytesOf(raw);
    return init.dataType === DATA_TYPE_UINT8 ? bytes : new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  }
  const ints = readInt64s(fields, TENSOR.int32Data);
  return init.dataType === DATA_TYPE_UINT8 ? Uint8Array.from(ints) : Int8Array.from(ints);
}

const bytesOf = (raw: Field | Uint8Array): Uint8Array => (raw instanceof Uint8Array ? raw : payload(raw));

/** An external initializer's bytes, from the file of `externalData` its location names; undefined when it is not external or the file is absent. */
function externalBytes(fields: Field[], externalData: ModelWithData['externalData']): Uint8Array | undefined {
  const entries = new Map(
    fields.filter((f) => f.num === TENSOR.externalData).map((f) => {
      const entry = readFields(payload(f));
      const text = (num: number) => entry.filter((e) => e.num === num).map(str)[0] ?? '';
      return [text(STRING_ENTRY.key), text(STRING_ENTRY.value)] as const;
    }),
  );
  const data = externalData.find((d) => d.path === entries.get('location'))?.data;
  if (!data) return undefined;
  const offset = Number(entries.get('offset') ?? 0);
  return data.subarray(offset, entries.has('length') ? offset + Number(entries.get('length')) : undefined);
}

/**
 * An initializer of `dataType` whose `bytes` values are in the external file `location` (from offset 0),
 * which the session is given beside the model (onnxruntime-web's `externalData`): the values are copied
 * once, into the tensor, instead of travelling inside the model's bytes and being parsed out of them.
 */
export function encodeExternalInitializer(name: string, dims: number[], dataType: number, location: string, bytes: number): Chunks {
  const out = new Chunks();
  for (const d of dims) out.varint(TENSOR.dims, d);
  out.varint(TENSOR.dataType, dataType).string(TENSOR.name, name);
  const entry = (key: string, value: string) => new Chunks().string(STRING_ENTRY.key, key).string(STRING_ENTRY.value, value);
  for (const [key, value] of [['location', location], ['offset', '0'], ['length', String(bytes)]] as const) out.message(TENSOR.externalData, entry(key, value));
  return out.varint(TENSOR.dataLocation, DATA_LOCATION_EXTERNAL);
}

/** Initializers this large or larger go to onnxruntime as files of their own (withExternalInitializers). */
const EXTERNAL_FROM_BYTES = 4096;

/** A model and the external files its initializers name (onnxruntime-web's SessionOptions.externalData). */
export interface ModelWithData {
  model: Uint8Array;
  externalData: { path: string; data: Uint8Array }[];
}

/** Bytes of a whole model as a model without external files; a ModelWithData as it is. */
export const asModelWithData = (from: Uint8Array | ModelWithData): ModelWithData => (from instanceof Uint8Array ? { model: from, externalData: [] } : from);

/**
 * `model` with each initializer of its main graph whose raw data is `minBytes` or more moved into an
 * external file of its own (a view of the same bytes, no copy). onnxruntime-web then copies each one
 * once, straight into its tensor, instead of holding the whole model in its heap, and a parsed copy of
 * it, while the session is created.
 */
export function withExternalInitializers(from: Uint8Array | ModelWithData, minBytes = EXTERNAL_FROM_BYTES): ModelWithData {
  const model = asModelWithData(from);
  const { modelFields, graphFields } = parseModel(model.model);
  const taken = new Set(model.externalData.map((d) => d.path));
  const externalData = [...model.externalData];
  const graph = new Chunks();
  for (const f of graphFields) {
    const raw = f.num === GRAPH.initializer ? readFields(payload(f)).find((t) => t.num === TENSOR.rawData) : undefined;
    const data = raw ? payload(raw) : null;
    if (!data || data.length < minBytes) {
      graph.push(f.bytes);
      continue;
    }
    const { name, dims, dataType } = viewInitializer(f);
    let path = `initializer-${externalData.length}.bin`;
    while (taken.has(path)) path = `_${path}`;
    graph.message(GRAPH.initializer, encodeExternalInitializer(name, dims, dataType, path, data.length));
    externalData.push({ path, data });
  }
  return { model: modelWithGraph(modelFields, graph), externalData };
}

export function encodeInt64Initializer(name: string, values: number[]): Chunks {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true));
  return new Chunks().varint(TENSOR.dims, values.length).varint(TENSOR.dataType, DATA_TYPE_INT64).string(TENSOR.name, name).bytesField(TENSOR.rawData, raw);
}

/** A Constant node whose output is an empty float tensor of `dims` (one of them 0). */
export function encodeEmptyFloatConstant(name: string, output: string, dims: number[]): Chunks {
  if (!dims.includes(0)) throw new Error(`encodeEmptyFloatConstant: dims [${dims.join(', ')}] hold values`);
  const tensor = new Chunks();
  for (const d of dims) tensor.varint(TENSOR.dims, d);
  tensor.varint(TENSOR.dataType, DATA_TYPE_FLOAT).string(TENSOR.name, output);
  const value = new Chunks().string(ATTRIBUTE.name, 'value').message(ATTRIBUTE.t, tensor).varint(ATTRIBUTE.type, ATTRIBUTE_TYPE_TENSOR);
  return encodeNode('Constant', name, [], [output]).message(NODE.attribute, value);
}

/** A node of the default domain with its integer `attributes` (a Cast's `to`, a Transpose's `perm`). */
export function encodeNode(opType: string, name: string, inputs: string[], outputs: string[], attributes: Record<string, number | number[]> = {}): Chunks {
  const node = new Chunks();
  for (const i of inputs) node.string(NODE.input, i);
  for (const o of outputs) node.string(NODE.output, o);
  node.string(NODE.name, name).string(NODE.opType, opType);
  for (const [key, value] of Object.entries(attributes)) {
    const attribute = new Chunks().string(ATTRIBUTE.name, key);
    if (typeof value === 'number') attribute.varint(ATTRIBUTE.i, value).varint(ATTRIBUTE.type, ATTRIBUTE_TYPE_INT);
    else {
      for (const v of value) attribute.varint(ATTRIBUTE.ints, v);
      attribute.varint(ATTRIBUTE.type, ATTRIBUTE_TYPE_INTS);
    }
    node.message(NODE.attribute, attribute);
  }
  return node;
}

/** The node with input names replaced (`from` → `to`, or every key of a map → its value); every other field keeps its bytes. */
export function renameNodeInput(node: NodeView, from: string | ReadonlyMap<string, string>, to?: string): Chunks {
  const renames = typeof from === 'string' ? new Map([[from, to!]]) : from;
  const out = new Chunks();
  for (const f of node.fields) {
    const renamed = f.num === NODE.input ? renames.get(str(f)) : undefined;
    if (renamed !== undefined) out.string(NODE.input, renamed);
    else out.push(f.bytes);
  }
  return out;
}

interface ParsedModel {
  modelFields: Field[];
  graphField: Field;
  graphFields: Field[];
}

export function parseModel(model: Uint8Array): ParsedModel {
  const modelFields = readFields(model);
  const graphField = modelFields.find((f) => f.num === MODEL.graph && f.wire === WIRE_LEN);
  if (!graphField) throw new Error('Not an ONNX model: ModelProto.graph not found');
  return { modelFields, graphField, graphFields: readFields(payload(graphField)) };
}

export function defaultOpset(modelFields: Field[]): number {
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
export function modelWithGraph(modelFields: Field[], graph: Chunks): Uint8Array {
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
