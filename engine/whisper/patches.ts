/**
 * The Whisper graph patches: the encoder runs on windows shorter than 30 s and exposes intermediate
 * tensors; the decoder takes its self-attention mask and token positions as inputs (a sequence,
 * or beams in one cache), its uncached branch computes a window's cross-attention cache only, and
 * every token run begins from that cache. Built on the protobuf reader/writer of engine/onnx/protobuf.ts.
 */
import { FULL_FRAMES } from './features';
import {
  asModelWithData,
  ATTRIBUTE,
  attributeInts,
  Chunks,
  DATA_TYPE_FLOAT,
  DATA_TYPE_INT8,
  DATA_TYPE_INT64,
  DATA_TYPE_UINT8,
  GRAPH,
  NODE,
  defaultOpset,
  encodeEmptyFloatConstant,
  encodeExternalInitializer,
  encodeInt64Initializer,
  encodeNode,
  encodeValueInfo,
  initializerValues,
  modelWithGraph,
  parseModel,
  payload,
  readFields,
  renameNodeInput,
  str,
  viewInitializer,
  viewNode,
  viewValueInfo,
  type Dim,
  type Field,
  type InitializerView,
  type ModelWithData,
  type NodeView,
  type ValueInfoView,
} from '../onnx/protobuf';

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
  /**
   * The encoder's attention heads (config.json's encoder_attention_heads): each self-attention's scores,
   * softmax and value product are then computed one head after another instead of for all heads at once,
   * so the [heads, frames, frames] scores and probabilities are never held whole. The same values.
   */
  attentionHeads?: number;
}

/** Positions of Whisper's 30 s window after the stride-2 convolution, and mel frames before it. */
const WHISPER_FRAMES = FULL_FRAMES;
const WHISPER_POSITIONS = FULL_FRAMES / 2;
const PREFIX = '/localscribe/pos_slice';
const PATCH_ENCODER = '/localscribe/heads';

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

  if (options.attentionHeads) {
    for (const split of headByHeadAttention(nodes, options.attentionHeads)) {
      if (dead.has(split.last)) continue;
      for (const node of split.removed) replaced.set(node.field, null);
      insertBefore.set(split.last.field, split.nodes);
      replaced.set(split.last.field, split.concat);
    }
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

/**
 * Each self-attention of the form MatMul(q, kᵀ) → Softmax → Reshape* → MatMul(·, v), q, kᵀ and v being
 * [heads, ·, ·] (batch 1), made into one such chain per head: Split q, kᵀ and v along the heads, and
 * Concat the heads' results into the original product's output. onnxruntime frees each head's scores
 * before the next head's, so the arena holds one head's [frames, frames] instead of all of them (the
 * Reshapes only regroup the batch and heads axes, so dropping them changes no value).
 */
function headByHeadAttention(nodes: readonly NodeView[], heads: number): { removed: NodeView[]; last: NodeView; nodes: Chunks[]; concat: Chunks }[] {
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const consumers = new Map<string, NodeView[]>();
  for (const n of nodes) for (const i of n.inputs) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  const only = (name: string) => (consumers.get(name)?.length === 1 ? consumers.get(name)![0]! : undefined);
  const found = [];
  for (const softmax of nodes.filter((n) => n.opType === 'Softmax' && n.domain === '')) {
    const scores = producer.get(softmax.inputs[0]!);
    if (scores?.opType !== 'MatMul' || only(scores.outputs[0]!) !== softmax) continue;
    const reshapes: NodeView[] = [];
    let next = only(softmax.outputs[0]!);
    let value = softmax.outputs[0]!;
    while (next?.opType === 'Reshape' && next.inputs[0] === value) {
      reshapes.push(next);
      value = next.outputs[0]!;
      next = only(value);
    }
    if (next?.opType !== 'MatMul' || next.inputs[0] !== value) continue;
    const [q, k] = scores.inputs as [string, string];
    const v = next.inputs[1]!;
    const name = `${PATCH_ENCODER}/${next.name}`;
    const part = (what: string) => Array.from({ length: heads }, (_, h) => `${name}/${what}_${h}`);
    const [qs, ks, vs, ss, ps, os] = ['q', 'k', 'v', 'scores', 'probs', 'out'].map(part) as [string[], string[], string[], string[], string[], string[]];
    const made = [
      encodeNode('Split', `${name}/SplitQ`, [q], qs, { axis: 0 }),
      encodeNode('Split', `${name}/SplitK`, [k], ks, { axis: 0 }),
      encodeNode('Split', `${name}/SplitV`, [v], vs, { axis: 0 }),
    ];
    const softmaxAttributes = softmax.fields.filter((f) => f.num === NODE.attribute);
    for (let h = 0; h < heads; h++) {
      made.push(encodeNode('MatMul', `${name}/Scores_${h}`, [qs[h]!, ks[h]!], [ss[h]!]));
      const sm = encodeNode('Softmax', `${name}/Softmax_${h}`, [ss[h]!], [ps[h]!]);
      for (const a of softmaxAttributes) sm.push(a.bytes);
      made.push(sm, encodeNode('MatMul', `${name}/Value_${h}`, [ps[h]!, vs[h]!], [os[h]!]));
    }
    found.push({ removed: [scores, softmax, ...reshapes], last: next, nodes: made, concat: encodeNode('Concat', `${name}/Concat`, os, next.outputs, { axis: 0 }) });
  }
  if (found.length === 0) throw new Error('Whisper encoder patch: no MatMul → Softmax → MatMul self-attention found');
  return found;
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

/** A declared [batch, heads, positions, head size] as [batch, positions, heads, head size], the positions renamed when `positions` is given. */
function positionMajor(dims: Dim[] | null, positions?: string): Dim[] | null {
  if (dims?.length !== 4) return dims;
  const [batch, heads, length, size] = dims as [Dim, Dim, Dim, Dim];
  return [batch, positions ?? length, heads, size];
}

/** An empty tensor's dims for a declared shape: its fixed dimensions, 0 for each free one ([0] when undeclared). */
function emptyDims(dims: Dim[] | null): number[] {
  const out = (dims ?? [null]).map((d) => (typeof d === 'number' && d > 0 ? d : 0));
  return out.includes(0) ? out : [...out, 0];
}

/** Prefix of every name patchWhisperDecoder adds to the graph. */
const PATCH = '/localscribe/patch';

/** The decoder outputs that hold a window's cross-attention cache, the only ones the uncached branch still computes. */
const CROSS_CACHE_OUTPUT = /^present\.\d+\.encoder\.(key|value)$/;
/** The decoder's self-attention cache: inputs past_key_values.*.decoder.*, outputs present.*.decoder.*. */
const SELF_CACHE = /^(past_key_values|present)\.\d+\.decoder\.(key|value)$/;
/** [batch, heads, positions, head size] ↔ [batch, positions, heads, head size]. */
const HEADS_POSITIONS = [0, 2, 1, 3];

/** The decoder input added by patchWhisperDecoder: the first position whose logits are computed. */
export const LOGITS_FROM = 'logits_from';

/**
 * The decoder input added by patchWhisperDecoder: the cached branch's additive self-attention mask,
 * float [new tokens, past + new tokens] (0 where a new token may see a key, -1e9 where not).
 */
export const SELF_MASK = 'self_mask';

/** The decoder input added by patchWhisperDecoder: the cached branch's position of each new token, int64 [new tokens]. */
export const TOKEN_POSITIONS = 'token_positions';

/** The logits weight that patchWhisperDecoder makes once (its LogitsWeight); with 'int8', the special tokens' part. */
const LOGITS_WEIGHT = `${PATCH}/logits_weight`;
const SPECIAL_WEIGHT = `${PATCH}/special_logits_weight`;
/** The int64 initializers of integerProduct: EXACT_TOKENS, and a Pad's pads adding one row. */
const EXACT_COUNT = `${PATCH}/exact_tokens`;
const EXTRA_ROW = `${PATCH}/extra_row`;
const [FIRST_ROW, LAST_ROW] = [`${PATCH}/first_row`, `${PATCH}/last_row`];
/** The int64 [1] initializer holding 1, the rows' axis (patchWhisperDecoder's Slice of the hidden state). */
const ROW_AXIS = `${PATCH}/axis`;

/**
 * How the decoder's logits weight is held (the q8 exports dequantize their int8 token embedding into it
 * in every run, and onnxruntime never folds a DequantizeLinear):
 * - 'float': dequantized once at load, as floats (4 bytes a value);
 * - 'int8': the int8 values once transposed at load, multiplied by the dynamically quantized hidden
 *   state as the export's other MatMuls are (1 byte a value);
 * - 'export': the export's own path.
 */
export const LOGITS_WEIGHTS = ['float', 'int8', 'export'] as const;
export type LogitsWeight = (typeof LOGITS_WEIGHTS)[number];

/** A patched model and the external data files its initializers name (onnxruntime-web's SessionOptions.externalData). */
export type PatchedModel = ModelWithData;

/** The int8 logits weight as the export stores it, and how the export dequantizes it. */
interface StoredWeight {
  values: Uint8Array | Int8Array;
  dataType: number;
  /** The stored [rows, cols]; the weight [d_model, vocab] is its transpose when `transposed`. */
  rows: number;
  cols: number;
  transposed: boolean;
  /** The initializers' names (the exact pass dequantizes with them) and their values. */
  scale: string;
  zeroPoint: string | undefined;
  scaleValue: number;
  zeroValue: number;
}

/**
 * The logits MatMul's weight [d_model, vocab] where the export makes it in every decoder run by
 * dequantizing (and transposing) an int8 copy of the token embedding with one scale; null where it is
 * made otherwise (a float export, a scale per channel).
 */
function storedLogitsWeight(
  nodes: readonly NodeView[],
  initializers: ReadonlyMap<string, InitializerView>,
  weight: string,
  externalData: ModelWithData['externalData'],
): StoredWeight | null {
  const dequantize = nodes.find((n) => n.outputs[0] === weight && n.opType === 'DequantizeLinear');
  if (!dequantize || dequantize.inputs.length < 2) return null;
  const [input, scaleName, zeroName] = dequantize.inputs as [string, string, string | undefined];
  const transpose = nodes.find((n) => n.outputs[0] === input && n.opType === 'Transpose');
  if (transpose && transpose.fields.some((f) => f.num === NODE.attribute && !swapsTwoAxes(f))) return null;
  const quantized = initializers.get(transpose ? transpose.inputs[0]! : input);
  const scale = initializers.get(scaleName);
  const zero = zeroName ? initializers.get(zeroName) : undefined;
  if (!quantized || quantized.dims.length !== 2 || ![DATA_TYPE_UINT8, DATA_TYPE_INT8].includes(quantized.dataType) || !scale) return null;
  const values = initializerValues(quantized, externalData);
  const s = initializerValues(scale, externalData);
  const z = zero ? initializerValues(zero, externalData) : new Uint8Array(1);
  if (!values || values instanceof Float32Array || !(s instanceof Float32Array) || s.length !== 1 || !z || z.length !== 1) return null;
  const [rows, cols] = quantized.dims as [number, number];
  return { values, dataType: quantized.dataType, rows, cols, transposed: !!transpose, scale: scaleName, zeroPoint: zeroName, scaleValue: s[0]!, zeroValue: z[0]! };
}

/** A weight made once at load, for an external file. */
interface MadeWeight {
  name: string;
  file: string;
  dims: number[];
  dataType: number;
  bytes: Uint8Array;
}

/**
 * The logits weight [d_model, vocab] made once at load. 'float': (q - zero point) × scale, rounded to
 * float as the export's DequantizeLinear does, so the logits are unchanged. 'int8': the stored values in
 * the weight's layout for the text tokens (the columns before `specialFrom`), and the special tokens'
 * columns (end of text, languages, tasks, timestamps) as floats.
 */
function madeLogitsWeights(stored: StoredWeight, kind: 'float' | 'int8', specialFrom: number): MadeWeight[] {
  const { values: q, rows, cols, transposed, scaleValue: scale, zeroValue: zero } = stored;
  const [dModel, vocab] = transposed ? [cols, rows] : [rows, cols];
  // value [d, v] of the weight: stored [vocab, d_model] is its transpose
  const at = (d: number, v: number) => q[transposed ? v * cols + d : d * cols + v]!;
  const made = (name: string, dataType: number, from: number, to: number, bytes: Uint8Array): MadeWeight => ({
    name,
    file: `localscribe-${name.split('/').pop()}.bin`,
    dims: [dModel, to - from],
    dataType,
    bytes,
  });
  const floats = (name: string, from: number, to: number): MadeWeight => {
    const out = new Float32Array(dModel * (to - from));
    for (let d = 0; d < dModel; d++) for (let v = from; v < to; v++) out[d * (to - from) + v - from] = (at(d, v) - zero) * scale;
    return made(name, DATA_TYPE_FLOAT, from, to, new Uint8Array(out.buffer));
  };
  if (kind === 'float') return [floats(LOGITS_WEIGHT, 0, vocab)];
  const text = new Uint8Array(dModel * specialFrom);
  for (let d = 0; d < dModel; d++) for (let v = 0; v < specialFrom; v++) text[d * specialFrom + v] = at(d, v) & 0xff;
  return [made(LOGITS_WEIGHT, stored.dataType, 0, specialFrom, text), floats(SPECIAL_WEIGHT, specialFrom, vocab)];
}

/** How many of each row's best tokens the int8 logits path scores again exactly (integerProduct). */
const EXACT_TOKENS = 64;

/**
 * The logits MatMul on the int8 weight. Every logit first comes from the export's own pattern for its
 * other MatMuls (which onnxruntime fuses into one DynamicQuantizeMatMul): the hidden state quantized per
 * run, an integer product, and the two scales. That costs up to about one logit of error, as one scale
 * covers all of a row's channels; the EXACT_TOKENS highest of each row are then computed again from the
 * float hidden state and their dequantized weight columns, the float product's arithmetic, so the tokens
 * decoding chooses between have the float path's logits.
 */
function integerProduct(logits: NodeView, hidden: string, stored: StoredWeight): Chunks[] {
  const at = (part: string) => `${logits.name}${PATCH}/${part}`;
  const zero = stored.zeroPoint ? [stored.zeroPoint] : [];
  return [
    encodeNode('DynamicQuantizeLinear', at('quantize'), [hidden], [at('q'), at('q_scale'), at('q_zero')]),
    encodeNode('MatMulInteger', at('product'), [at('q'), LOGITS_WEIGHT, at('q_zero'), ...zero], [at('int')]),
    encodeNode('Cast', at('cast'), [at('int')], [at('float')], { to: DATA_TYPE_FLOAT }),
    encodeNode('Mul', at('scales'), [at('q_scale'), stored.scale], [at('scale')]),
    encodeNode('Mul', at('scaled'), [at('float'), at('scale')], [at('approximate')]),
    // one row of zeros after the rows, taken off again: TopK fails on a run that asks for no logits row
    encodeNode('Pad', at('padded'), [at('approximate'), EXTRA_ROW], [at('padded_rows')]),
    encodeNode('TopK', at('best'), [at('padded_rows'), EXACT_COUNT], [at('best_values'), at('padded_ids')], { sorted: 0 }),
    encodeNode('Slice', at('unpadded'), [at('padded_ids'), FIRST_ROW, LAST_ROW, ROW_AXIS], [at('best_ids')]),
    // [d_model, 1, rows, k]: each best token's column of the weight
    encodeNode('Gather', at('columns'), [LOGITS_WEIGHT, at('best_ids')], [at('columns_q')], { axis: 1 }),
    encodeNode('DequantizeLinear', at('dequantize'), [at('columns_q'), stored.scale, ...zero], [at('columns_float')]),
    encodeNode('Transpose', at('by_row'), [at('columns_float')], [at('row_columns')], { perm: [1, 2, 0, 3] }),
    encodeNode('Unsqueeze', at('row_vectors'), [hidden], [at('hidden_rows')], { axes: [2] }),
    encodeNode('MatMul', at('exact'), [at('hidden_rows'), at('row_columns')], [at('exact_rows')]),
    encodeNode('Squeeze', at('exact_values'), [at('exact_rows')], [at('exact_values')], { axes: [2] }),
    encodeNode('ScatterElements', at('place'), [at('approximate'), at('best_ids'), at('exact_values')], [at('text')], { axis: 2 }),
    encodeNode('MatMul', at('special'), [hidden, SPECIAL_WEIGHT], [at('special_values')]),
    encodeNode('Concat', at('joined'), [at('text'), at('special_values')], [logits.outputs[0]!], { axis: 2 }),
  ];
}

/** Whether a Transpose's attribute is perm [1, 0] (what a Transpose of a matrix without one does). */
function swapsTwoAxes(attribute: Field): boolean {
  const perm = attributeInts(readFields(payload(attribute)));
  return perm.length === 2 && perm[0] === 1 && perm[1] === 0;
}

/**
 * Patches a Whisper merged decoder (transformers.js / optimum export: an If on use_cache_branch):
 * - its cached branch takes its self-attention mask (SELF_MASK) and its tokens' positions
 *   (TOKEN_POSITIONS) as inputs. The export traced that branch with one new token, so it has no mask:
 *   several tokens after a cache (or after an empty one) would each see the tokens after it. A causal
 *   mask lets a pass begin from the window's cross-attention cache with all its prompt tokens at once;
 *   beam search's mask and positions let one run step every hypothesis over one shared cache;
 * - its uncached branch computes the cross-attention cache (present.*.encoder.*) and nothing else: its
 *   other outputs are empty constants, so its self-attention, feed-forward and logits nodes are gone.
 *   They duplicated the cached branch's (onnxruntime prepacks each branch's weights apart), and its
 *   logits dequantized the whole int8 logits weight in every window's first run (106 MB for base);
 * - the cached branch computes logits only from position LOGITS_FROM (an int64 [1] input) on: a 120-token
 *   prompt's rows over the 51,865-token vocabulary cost more than the rest of its decoder run;
 * - unless `logitsWeight` is 'export', the cached branch multiplies by the logits weight made once here
 *   (LogitsWeight), handed over as external data;
 * - the self-attention cache goes in position-major ([batch, positions, heads, head size], past_key_values.*
 *   .decoder.*), and present.*.decoder.* gives back only the run's own tokens' keys and values, in the
 *   same layout: the caller appends them to buffers it keeps, so a decoder run never copies the whole
 *   cache back out (nor leaves it behind for the garbage collector), and the cache goes in as a view.
 */
export function patchWhisperDecoder(
  model: Uint8Array | ModelWithData,
  options: { logitsWeight?: LogitsWeight; specialFrom?: number } = {},
): PatchedModel {
  const weightKind = options.logitsWeight ?? 'float';
  if (weightKind === 'int8' && !options.specialFrom) throw new Error("Whisper decoder patch: logitsWeight 'int8' needs specialFrom, the first special token's id");
  const input = asModelWithData(model);
  const { modelFields, graphFields } = parseModel(input.model);
  const ifs = graphFields.filter((f) => f.num === GRAPH.node).map(viewNode).filter((n) => n.opType === 'If' && n.inputs[0] === 'use_cache_branch');
  if (ifs.length !== 1) throw new Error('Not a Whisper merged decoder: no If on use_cache_branch');
  const ifNode = ifs[0]!;
  const inputNames = graphFields.filter((f) => f.num === GRAPH.input).map((f) => viewValueInfo(f).name);
  const pastKey = 'past_key_values.0.decoder.key';
  if (!inputNames.includes('input_ids') || !inputNames.includes(pastKey)) throw new Error(`Not a Whisper merged decoder: inputs input_ids and ${pastKey} not found`);

  const name = (part: string) => `${PATCH}/${part}`;
  const initializers = [encodeInt64Initializer(name('end'), [Number.MAX_SAFE_INTEGER]), encodeInt64Initializer(ROW_AXIS, [1])];
  // the cached branch reads each position-major past input through a Transpose back to the export's layout
  const headMajorPast = new Map(inputNames.filter((n) => SELF_CACHE.test(n)).map((n) => [n, `${n}${PATCH}/heads`]));
  let selfOutputs = 0;

  const topInitializers = new Map(graphFields.filter((f) => f.num === GRAPH.initializer).map(viewInitializer).map((i) => [i.name, i]));
  // the logits weight as the first branch makes it; the other branch makes the same one
  const logitsWeight: { name: string | null; stored: StoredWeight | null } = { name: null, stored: null };
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
    /** The Transposes giving the branch's self-attention outputs, placed after its other nodes. */
    const newSelf: Chunks[] = [];
    // what computed the sliced positions' bounds is left with no use once the slice is a Gather
    const views = new Map(branch.filter((f) => f.num === GRAPH.node).map((f) => [f, viewNode(f)]));
    const outputInfo = branch.filter((f) => f.num === GRAPH.output).map(viewValueInfo);
    const outputs = new Set(outputInfo.map((o) => o.name));
    // The uncached branch is run only for the window's cross-attention cache: its other outputs become
    // empty tensors of their declared rank (a free dimension 0), so nothing else in it is computed.
    const stubbed = new Map(
      cached ? [] : outputInfo.filter((o) => !CROSS_CACHE_OUTPUT.test(o.name)).map((o) => [o.name, { name: `${o.name}${PATCH}/empty`, dims: emptyDims(SELF_CACHE.test(o.name) ? positionMajor(o.dims) : o.dims) }]),
    );
    for (const o of stubbed.keys()) outputs.delete(o);
    const nodes = [...views.values()];
    const logits = nodes.find(isLogits);
    if (logits && logitsWeight.name === null && weightKind !== 'export') {
      Object.assign(logitsWeight, { name: logits.inputs[1]!, stored: storedLogitsWeight(nodes, topInitializers, logits.inputs[1]!, input.externalData) });
    }
    const weightRename = new Map(cached && logitsWeight.stored && logits?.inputs[1] === logitsWeight.name ? [[logitsWeight.name, LOGITS_WEIGHT]] : []);
    const after = nodes.map((n) => {
      if (cached && isPositionSlice(n)) return { ...n, inputs: [n.inputs[0]!, TOKEN_POSITIONS] };
      // the weight made once leaves the export's dequantization (and transpose) without a use
      return n === logits && weightRename.size > 0 ? { ...n, inputs: [n.inputs[0]!, LOGITS_WEIGHT] } : n;
    });
    const unused = new Set(deadNodes(after, outputs).map((n) => n.field));
    const out = new Chunks();
    let stubsPlaced = false;
    for (const f of branch) {
      const node = views.get(f);
      const declared = f.num === GRAPH.output ? viewValueInfo(f) : null;
      const stub = declared ? stubbed.get(declared.name) : undefined;
      if (stub) out.message(GRAPH.output, encodeValueInfo(stub.name, DATA_TYPE_FLOAT, null));
      const selfOutput = cached && declared && SELF_CACHE.test(declared.name) ? declared : null;
      if (selfOutput) {
        // the branch gives back the run's own keys or values (what the export concatenates to the past), position-major
        const concat = nodes.find((n) => n.outputs[0] === selfOutput.name);
        if (concat?.opType !== 'Concat' || !headMajorPast.has(concat.inputs[0]!)) throw new Error(`Whisper decoder patch: ${selfOutput.name} is not the past concatenated with the new tokens'`);
        newSelf.push(encodeNode('Transpose', `${selfOutput.name}${PATCH}/Transpose`, [concat.inputs[1]!], [`${selfOutput.name}${PATCH}/new`], { perm: HEADS_POSITIONS }));
        out.message(GRAPH.output, encodeValueInfo(`${selfOutput.name}${PATCH}/new`, DATA_TYPE_FLOAT, positionMajor(selfOutput.dims, 'new')));
        selfOutputs++;
        continue;
      }
      if (node && !stubsPlaced) {
        for (const empty of stubbed.values()) out.message(GRAPH.node, encodeEmptyFloatConstant(empty.name, empty.name, empty.dims));
        if (cached) for (const [past, heads] of headMajorPast) out.message(GRAPH.node, encodeNode('Transpose', `${heads}/Transpose`, [past], [heads], { perm: HEADS_POSITIONS }));
        stubsPlaced = true;
      }
      if (!node) {
        if (!stub) out.push(f.bytes);
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
      } else if (isLogits(node)) {
        const hidden = node.inputs[0]!;
        const kept = `${hidden}${PATCH}/from`;
        out.message(GRAPH.node, encodeNode('Slice', `${node.name}${PATCH}/Slice`, [hidden, LOGITS_FROM, name('end'), ROW_AXIS], [kept]));
        if (weightRename.size > 0 && weightKind === 'int8') for (const n of integerProduct(node, kept, logitsWeight.stored!)) out.message(GRAPH.node, n);
        else out.message(GRAPH.node, renameNodeInput(node, new Map([[hidden, kept], ...weightRename])));
        sliced++;
      } else if (cached && node.inputs.some((i) => headMajorPast.has(i))) out.message(GRAPH.node, renameNodeInput(node, headMajorPast));
      else out.push(f.bytes);
    }
    for (const n of newSelf) out.message(GRAPH.node, n);
    return out;
  };

  const isLogits = (node: NodeView) => node.outputs[0] === 'logits' && node.opType === 'MatMul';
  const node = new Chunks();
  for (const f of ifNode.fields) {
    const edited = f.num === NODE.attribute ? attribute(f) : null;
    if (edited) node.message(NODE.attribute, edited);
    else node.push(f.bytes);
  }
  if (masked === 0) throw new Error('Whisper decoder patch: no self-attention Softmax in the cached branch');
  if (positioned !== 1) throw new Error(`Whisper decoder patch: expected one positional-embedding Slice in the cached branch, found ${positioned}`);
  if (sliced !== 1) throw new Error(`Whisper decoder patch: expected a MatMul giving the logits in the cached branch, found ${sliced}`);
  if (selfOutputs !== headMajorPast.size) throw new Error(`Whisper decoder patch: ${headMajorPast.size} self-attention cache inputs but ${selfOutputs} outputs`);
  const externalData: PatchedModel['externalData'] = [...input.externalData];
  if (logitsWeight.stored && weightKind !== 'export') {
    for (const { name: weight, file, dims, dataType, bytes } of madeLogitsWeights(logitsWeight.stored, weightKind, options.specialFrom ?? 0)) {
      initializers.push(encodeExternalInitializer(weight, dims, dataType, file, bytes.byteLength));
      externalData.push({ path: file, data: bytes });
    }
    if (weightKind === 'int8') {
      initializers.push(encodeInt64Initializer(EXACT_COUNT, [EXACT_TOKENS]), encodeInt64Initializer(EXTRA_ROW, [0, 0, 0, 0, 1, 0]));
      initializers.push(encodeInt64Initializer(FIRST_ROW, [0]), encodeInt64Initializer(LAST_ROW, [-1]));
    }
  }

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
    const declared = f.num === GRAPH.input || f.num === GRAPH.output ? viewValueInfo(f) : null;
    if (f === ifNode.field) graph.message(GRAPH.node, node);
    else if (declared && SELF_CACHE.test(declared.name)) {
      graph.message(f.num, encodeValueInfo(declared.name, declared.elemType, positionMajor(declared.dims, f.num === GRAPH.output ? 'new' : undefined)));
    } else graph.push(f.bytes);
  }
  if (!initializersPlaced) for (const c of initializers) graph.message(GRAPH.initializer, c);

  return { model: modelWithGraph(modelFields, graph), externalData };
}
