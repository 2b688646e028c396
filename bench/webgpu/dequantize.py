#!/usr/bin/env python3
"""Rewrites a dynamically quantized (q8) Whisper ONNX file so that WebGPU can run all of it.

The npm packages' q8 graphs quantize every activation on the fly (DynamicQuantizeLinear) and multiply
in integers (MatMulInteger, ConvInteger); onnxruntime-web's WebGPU backend implements none of the three,
so those nodes fall back to the CPU (bench/webgpu/README.md). This keeps the same uint8 weights but
turns each  DynamicQuantizeLinear(x) -> MatMulInteger/ConvInteger -> Cast -> Mul(scale)  chain into
DequantizeLinear(weight) -> MatMul/Conv(x): float arithmetic on the same weights, every node a WebGPU
kernel, the file the same size. Activations are no longer rounded to 8 bits, so transcripts may differ
from q8's by a word.

Usage: python3 bench/webgpu/dequantize.py IN.onnx OUT.onnx   (needs the onnx package: apt python3-onnx)
"""
import sys

import onnx
from onnx import helper


def rewrite(graph, outer_producers, outer_inits, dequantized):
    """dequantized: weight name -> its DequantizeLinear output, shared by every graph of the file."""
    producers = {**outer_producers, **{o: n for n in graph.node for o in n.output}}
    # Each weight's DequantizeLinear goes into the graph that holds the weight: onnxruntime's optimizer
    # rejects one whose weight is an outer-scope initializer (the merged decoder's two branches).
    inits = {**outer_inits, **{i.name: graph for i in graph.initializer}}
    consumers = {}
    for n in graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    drop = set()
    added = []
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                rewrite(a.g, producers, inits, dequantized)
        if n.op_type not in ('MatMulInteger', 'ConvInteger'):
            continue
        quantize = producers[n.input[0]]
        assert quantize.op_type == 'DynamicQuantizeLinear', quantize.op_type
        (cast,) = consumers[n.output[0]]
        (scaled,) = consumers[cast.output[0]]
        assert cast.op_type == 'Cast' and scaled.op_type == 'Mul'
        scales = producers[next(i for i in scaled.input if i != cast.output[0])]
        weight_scale = next(i for i in scales.input if i != quantize.output[1])
        weight, weight_zero = n.input[1], n.input[3]
        assert weight in inits and weight_scale in inits, (weight, weight_scale)
        if weight not in dequantized:
            dequantized[weight] = weight + '_dequantized'
            owner = inits[weight]
            (added if owner is graph else owner.node).append(helper.make_node('DequantizeLinear', [weight, weight_scale, weight_zero],
                                          [dequantized[weight]], name=weight + '/DequantizeLinear'))
        op = 'MatMul' if n.op_type == 'MatMulInteger' else 'Conv'
        added.append(helper.make_node(op, [quantize.input[0], dequantized[weight]], [scaled.output[0]],
                                      name=n.name + '/float', **{a.name: helper.get_attribute_value(a) for a in n.attribute}))
        drop.update((id(n), id(cast), id(scaled)))
    kept = [n for n in graph.node if id(n) not in drop] + added
    del graph.node[:]
    graph.node.extend(kept)


def used_names(graph, into):
    into.update(o.name for o in graph.output)
    for n in graph.node:
        into.update(n.input)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                used_names(a.g, into)
    return into


def prune(graph, used):
    """Drops nodes none of whose outputs is read anywhere (the quantizers and scale products left over)."""
    before = len(graph.node)
    kept = [n for n in graph.node if any(o in used for o in n.output)]
    del graph.node[:]
    graph.node.extend(kept)
    removed = before - len(kept)
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                removed += prune(a.g, used)
    return removed


def sort_nodes(graph, known):
    """Topological order (ONNX requires it): the new MatMuls were appended after their readers."""
    known = set(known) | {i.name for i in graph.input} | {i.name for i in graph.initializer}
    produced = {o for n in graph.node for o in n.output}

    def needs(n):  # a node's inputs, and the names of this graph that its subgraphs read
        inner = set()
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                used_names(a.g, inner)
        return [i for i in n.input if i] + [i for i in inner if i in produced and i not in n.output]

    pending, ordered = list(graph.node), []
    while pending:
        ready = [n for n in pending if all(i in known for i in needs(n))]
        assert ready, 'cycle or missing input'
        for n in ready:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    sort_nodes(a.g, known)
            known.update(n.output)
        pending = [n for n in pending if not any(n is r for r in ready)]
        ordered += ready
    del graph.node[:]
    graph.node.extend(ordered)


def main(src, dst):
    model = onnx.load(src)
    rewrite(model.graph, {}, {}, {})
    while prune(model.graph, used_names(model.graph, set())):
        pass
    sort_nodes(model.graph, set())
    left = [n.op_type for n in model.graph.node if n.op_type in ('MatMulInteger', 'ConvInteger', 'DynamicQuantizeLinear')]
    assert not left, left
    onnx.save(model, dst)


if __name__ == '__main__':
    main(*sys.argv[1:3])
