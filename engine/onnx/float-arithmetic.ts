/**
 * Float arithmetic on an 8-bit model's weights. The q8 exports quantize each activation as they run and
 * multiply in integers: DynamicQuantizeLinear(x) → MatMulInteger/ConvInteger(x_q, w_q) → Cast → Mul by the
 * two scales. withFloatArithmetic turns each such chain into DequantizeLinear(w_q) → MatMul/Conv(x): the
 * same stored weights, activations no longer rounded to 8 bits, and only operators that onnxruntime-web's
 * WebGPU backend implements (it has no integer kernels: those nodes ran on the CPU, bench/webgpu/README.md).
 */
import {
  ATTRIBUTE,
  Chunks,
  GRAPH,
  NODE,
  encodeNode,
  modelWithGraph,
  parseModel,
  payload,
  readFields,
  viewInitializer,
  viewNode,
  viewValueInfo,
  type Field,
  type ModelWithData,
  type NodeView,
} from './protobuf';

/** A graph as read: its fields, its nodes' views, and the graphs inside its nodes' attributes. */
interface Graph {
  fields: Field[];
  nodes: NodeView[];
  views: Map<Field, NodeView>;
  initializers: Set<string>;
  /** node field → (attribute field → the attribute's fields and the graph it holds) */
  inner: Map<Field, Map<Field, { attribute: Field[]; graphField: Field; graph: Graph }>>;
}

function readGraph(fields: Field[]): Graph {
  const graph: Graph = { fields, nodes: [], views: new Map(), initializers: new Set(), inner: new Map() };
  for (const f of fields) {
    if (f.num === GRAPH.initializer) graph.initializers.add(viewInitializer(f).name);
    if (f.num !== GRAPH.node) continue;
    const node = viewNode(f);
    graph.nodes.push(node);
    graph.views.set(f, node);
    if (!node.hasSubgraph) continue;
    const inner = new Map<Field, { attribute: Field[]; graphField: Field; graph: Graph }>();
    for (const a of node.fields.filter((x) => x.num === NODE.attribute)) {
      const attribute = readFields(payload(a));
      const graphField = attribute.find((x) => x.num === ATTRIBUTE.g);
      if (graphField) inner.set(a, { attribute, graphField, graph: readGraph(readFields(payload(graphField))) });
    }
    graph.inner.set(f, inner);
  }
  return graph;
}

function* allGraphs(graph: Graph): Generator<Graph> {
  yield graph;
  for (const inner of graph.inner.values()) for (const { graph: g } of inner.values()) yield* allGraphs(g);
}

const INTEGER_PRODUCTS: Record<string, string> = { MatMulInteger: 'MatMul', ConvInteger: 'Conv' };

/**
 * The model with every integer product of a dynamically quantized activation by a stored 8-bit weight
 * done in floats. Each weight's DequantizeLinear goes into the graph that holds the weight (onnxruntime
 * rejects one whose weight is an outer-scope initializer, as in a merged decoder's branches), once
 * however many graphs read it; the quantizers and scale products left without a reader are dropped.
 * A chain of another shape is left as it was.
 */
export function withFloatArithmetic(input: ModelWithData): ModelWithData {
  const { modelFields, graphFields } = parseModel(input.model);
  const top = readGraph(graphFields);

  // Readers of each name over every graph (a branch reads its outer graph's values by name). Branches
  // may reuse a name for values of their own; that only makes the dropping below keep more than it must.
  const uses = new Map<string, number>();
  const use = (name: string, by: number) => uses.set(name, (uses.get(name) ?? 0) + by);
  for (const g of allGraphs(top)) {
    for (const n of g.nodes) for (const i of n.inputs) use(i, 1);
    for (const f of g.fields) if (f.num === GRAPH.output) use(viewValueInfo(f).name, 1);
  }

  const removed = new Set<Field>();
  const replaced = new Map<Field, Chunks>();
  const dequantizers = new Map<Graph, Chunks[]>();
  const floatWeights = new Map<string, string>();
  const leftOver: NodeView[] = [];

  const plan = (graph: Graph, outerProducers: ReadonlyMap<string, NodeView>, outerOwners: ReadonlyMap<string, Graph>) => {
    const producers = new Map(outerProducers);
    for (const n of graph.nodes) for (const o of n.outputs) producers.set(o, n);
    const owners = new Map(outerOwners);
    for (const name of graph.initializers) owners.set(name, graph);
    const readers = new Map<string, NodeView[]>();
    for (const n of graph.nodes) for (const i of n.inputs) readers.set(i, [...(readers.get(i) ?? []), n]);
    // Names are scoped: both branches of a merged decoder hold chains of the same names, so the readers
    // that count are this graph's own.
    const outputs = new Set(graph.fields.filter((f) => f.num === GRAPH.output).map((f) => viewValueInfo(f).name));
    const onlyReader = (name: string, opType: string) => {
      const r = readers.get(name);
      return r?.length === 1 && r[0]!.opType === opType && !outputs.has(name) ? r[0]! : null;
    };

    for (const node of graph.nodes) {
      for (const { graph: inner } of graph.inner.get(node.field)?.values() ?? []) plan(inner, producers, owners);
      const floatOp = INTEGER_PRODUCTS[node.opType];
      if (!floatOp || node.inputs.length < 3) continue;
      const [quantizedInput, weight, , weightZero] = node.inputs as [string, string, string, string | undefined];
      const quantize = producers.get(quantizedInput);
      const cast = onlyReader(node.outputs[0]!, 'Cast');
      const scaled = cast && onlyReader(cast.outputs[0]!, 'Mul');
      const scalesName = scaled?.inputs.find((i) => i !== cast!.outputs[0]);
      const scales = scalesName ? producers.get(scalesName) : undefined;
      const weightScale = scales?.opType === 'Mul' ? scales.inputs.find((i) => i !== quantize?.outputs[1]) : undefined;
      const home = owners.get(weight);
      if (quantize?.opType !== 'DynamicQuantizeLinear' || !scaled || !scales || !weightScale || !home || !owners.has(weightScale)) continue;

      let floatWeight = floatWeights.get(weight);
      if (!floatWeight) {
        floatWeight = `${weight}/localscribe/float`;
        floatWeights.set(weight, floatWeight);
        const zero = weightZero ? [weightZero] : [];
        dequantizers.set(home, [...(dequantizers.get(home) ?? []), encodeNode('DequantizeLinear', `${floatWeight}/DequantizeLinear`, [weight, weightScale, ...zero], [floatWeight])]);
      }
      const product = encodeNode(floatOp, `${node.name}/localscribe/float`, [quantize.inputs[0]!, floatWeight], [scaled.outputs[0]!]);
      for (const f of node.fields) if (f.num === NODE.attribute) product.push(f.bytes); // a Conv's strides, pads, ...
      replaced.set(scaled.field, product);
      removed.add(node.field).add(cast.field);
      for (const n of [node, cast, scaled]) for (const i of n.inputs) use(i, -1);
      use(quantize.inputs[0]!, 1);
      leftOver.push(scales, quantize);
    }
  };
  plan(top, new Map(), new Map());
  if (replaced.size === 0) return input;

  // The scale products, then the quantizers, that nothing reads any more.
  for (let changed = true; changed; ) {
    changed = false;
    for (const n of leftOver) {
      if (removed.has(n.field) || n.outputs.some((o) => (uses.get(o) ?? 0) > 0)) continue;
      removed.add(n.field);
      for (const i of n.inputs) use(i, -1);
      changed = true;
    }
  }

  const write = (graph: Graph): Chunks => {
    const out = new Chunks();
    let placed = false;
    for (const f of graph.fields) {
      if (f.num !== GRAPH.node) {
        out.push(f.bytes);
        continue;
      }
      if (!placed) for (const d of dequantizers.get(graph) ?? []) out.message(GRAPH.node, d);
      placed = true;
      const inner = graph.inner.get(f);
      if (removed.has(f)) continue;
      else if (replaced.has(f)) out.message(GRAPH.node, replaced.get(f)!);
      else if (!inner) out.push(f.bytes);
      else {
        const node = new Chunks();
        for (const nf of graph.views.get(f)!.fields) {
          const held = inner.get(nf);
          if (!held) {
            node.push(nf.bytes);
            continue;
          }
          const attribute = new Chunks();
          for (const af of held.attribute) {
            if (af === held.graphField) attribute.message(ATTRIBUTE.g, write(held.graph));
            else attribute.push(af.bytes);
          }
          node.message(NODE.attribute, attribute);
        }
        out.message(GRAPH.node, node);
      }
    }
    return out;
  };
  return { model: modelWithGraph(modelFields, write(top)), externalData: input.externalData };
}
