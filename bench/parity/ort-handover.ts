/**
 * Hands our onnxruntime-web (wasm, Node setup of bench/bias-set/node-model.ts) to transformers.js, which
 * in Node would load onnxruntime-node unless a runtime waits on this global symbol when it is first
 * imported: import this module before '@huggingface/transformers'. transformers.js passes model files
 * by path, which onnxruntime-web would fetch, so they are read from disk here.
 */
import { readFileSync } from 'node:fs';
import { nodeOrt } from '../bias-set/node-model';

const ort = nodeOrt();
const create = (model: string | Uint8Array, options?: object) => ort.InferenceSession.create(typeof model === 'string' ? readFileSync(model) : model, options);
(globalThis as Record<symbol, unknown>)[Symbol.for('onnxruntime')] = { ...ort, InferenceSession: { create } };
