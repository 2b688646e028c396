// A models folder whose Whisper graphs multiply in floats on the same 8-bit weights, for a library that
// cannot rewrite them itself (transformers.js, on the bench's WebGPU runs): the engine's own
// withFloatArithmetic (engine/onnx/float-arithmetic.ts) applied to the files, under their q8 names, with
// silero-vad, the models' JSON files and a manifest.json of the rewritten files' sizes and hashes.
// Usage: node bench/webgpu/float-models.mjs OUT_DIR MODEL...   (reads public/models)
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runnerImport } from 'vite';

const [out, ...models] = process.argv.slice(2);
if (!out || models.length === 0) throw new Error('usage: node bench/webgpu/float-models.mjs OUT_DIR MODEL...');
const source = resolve('public/models');
const { module } = await runnerImport(new URL('../../engine/onnx/float-arithmetic.ts', import.meta.url).pathname);

mkdirSync(out, { recursive: true });
cpSync(join(source, 'silero-vad'), join(out, 'silero-vad'), { recursive: true, dereference: true });
for (const model of models) {
  mkdirSync(join(out, model, 'onnx'), { recursive: true });
  for (const f of readdirSync(join(source, model)).filter((f) => f.endsWith('.json'))) cpSync(join(source, model, f), join(out, model, f), { dereference: true });
  for (const graph of ['encoder_model_quantized', 'decoder_model_merged_quantized']) {
    const bytes = new Uint8Array(readFileSync(join(source, model, 'onnx', `${graph}.onnx`)));
    writeFileSync(join(out, model, 'onnx', `${graph}.onnx`), module.withFloatArithmetic({ model: bytes, externalData: [] }).model);
  }
}
// The engine checks every file against the served manifest.json.
const files = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8'))
  .files.filter((e) => existsSync(join(out, e.path)))
  .map((e) => {
    const data = readFileSync(join(out, e.path));
    return { ...e, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
  });
writeFileSync(join(out, 'manifest.json'), JSON.stringify({ files }, null, 2));
console.log(`${out}: ${models.join(', ')} in float arithmetic, ${files.length} files`);
