import type { GraphListing } from '../../../engine/onnx/protobuf';

/**
 * The node inputs that are neither an initializer, a graph input nor an earlier node's output: empty
 * when the main graph's nodes are in topological order, as ONNX requires.
 */
export function inputsBeforeTheirNodes(g: GraphListing): string[] {
  const known = new Set([...g.initializers.map((i) => i.name), ...g.inputs.map((i) => i.name), '']);
  const unknown: string[] = [];
  for (const node of g.nodes) {
    for (const input of node.inputs) if (!known.has(input)) unknown.push(`${node.name} reads ${input}`);
    for (const output of node.outputs) known.add(output);
  }
  return unknown;
}
