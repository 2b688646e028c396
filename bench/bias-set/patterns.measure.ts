/**
 * Pattern recovery with the real model in Node, on the shipped path: the first pass (decodeWindow),
 * the pattern-constrained second pass (engine/biasing/patterns/pattern-pass.ts), then the text rewrite
 * (applyPatterns). Counts exact codes on the code clips of the bias set, and false rewrites (output
 * differing from the plain first pass) on its unrelated clips and on EVAL_DIR/en with all six patterns.
 * Env: VOICES=slt,kal (subset), MODEL, STRENGTH (bias_strength, default 0.45), ALL_PATTERNS=1 (every
 * code clip with all six patterns, not only its own), UNRELATED=0 (skip the
 * false-rewrite part), TRACE=1 (each constrained pass tried), LOG=file.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { compilePattern, type CompiledPattern } from '../../src/api/patterns';
import { decodeWindow } from '../../engine/decoding/fallback';
import { decodeWithPatterns, type PassTrace } from '../../engine/biasing/patterns/pattern-pass';
import { applyPatterns } from '../../engine/biasing/patterns/spoken-patterns';
import type { WhisperModel } from '../../engine/whisper/model';
import { generateBiasSet } from './generate.mjs';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { log } from './progress-log';

const STRENGTH = Number(process.env.STRENGTH ?? 0.45);

/** Plain first-pass text, text after the constrained pass, and after applyPatterns as well. */
async function transcribe(model: WhisperModel, file: string, patterns: CompiledPattern[]) {
  const clip = await encodeClip(model, readAudio(file));
  const opts = { language: 'en', wantAttention: false, audioSeconds: clip.seconds };
  const started = performance.now();
  const first = await decodeWindow(model, clip.encoded, opts);
  const firstMs = performance.now() - started;
  const trace = process.env.TRACE === '1' ? (t: PassTrace) =>
    log(`    tried ${t.spoken ? 'spoken' : 'written'} (gap ${t.gap.toFixed(1)}, ${t.logprob.toFixed(2)} vs ${t.firstLogprob.toFixed(2)}${t.accepted ? ', kept' : ''}): «${t.text.trim()}»`) : undefined;
  const gen = await decodeWithPatterns(model, clip.encoded, opts, first, patterns, STRENGTH, trace);
  const passMs = performance.now() - started - firstMs;
  clip.encoded.hidden.dispose();
  const text = (g: typeof first) => model.vocab.decode(g.tokens.map((t) => t.id)).trim();
  const plain = text(first);
  const decoded = text(gen);
  return { plain, decoded, fixed: applyPatterns(decoded, patterns), firstMs, passMs };
}

it('pattern recovery: exact codes, and false rewrites of unrelated speech', async () => {
  const { dir, clips } = generateBiasSet();
  const voices = process.env.VOICES?.split(',');
  const ofVoices = clips.filter((c) => !voices || voices.includes(c.speaker.slice(6)));
  const model = await loadNodeWhisper(process.env.MODEL ?? 'whisper-tiny');
  log(`model ${process.env.MODEL ?? 'whisper-tiny'}, strength ${STRENGTH}`);
  let total = 0;
  const hits = { plain: 0, decoded: 0, fixed: 0, textOnly: 0 };
  let [firstMs, passMs] = [0, 0];
  const all = [...new Set(clips.flatMap((c) => c.patterns ?? []))].map(compilePattern);
  for (const clip of ofVoices.filter((c) => c.kind === 'code')) {
    const patterns = process.env.ALL_PATTERNS === '1' ? all : (clip.patterns ?? []).map(compilePattern);
    const r = await transcribe(model, join(dir, clip.file), patterns);
    [firstMs, passMs] = [firstMs + r.firstMs, passMs + r.passMs];
    const textOnly = applyPatterns(r.plain, patterns);
    for (const code of clip.codes ?? []) {
      total++;
      if (r.plain.includes(code)) hits.plain++;
      if (r.decoded.includes(code)) hits.decoded++;
      if (textOnly.includes(code)) hits.textOnly++;
      if (r.fixed.includes(code)) hits.fixed++;
    }
    log(`${clip.file}: «${r.plain}» → «${r.decoded}» → «${r.fixed}»`);
  }
  log(`codes exact: first pass ${hits.plain}/${total}, first pass + applyPatterns ${hits.textOnly}/${total}, ` +
    `constrained pass ${hits.decoded}/${total}, constrained pass + applyPatterns ${hits.fixed}/${total}` +
    ` (decode ${(firstMs / 1000).toFixed(1)} s, pattern pass ${(passMs / 1000).toFixed(1)} s)`);

  if (process.env.UNRELATED === '0') return;
  const files = [
    ...ofVoices.filter((c) => c.kind === 'unrelated').map((c) => join(dir, c.file)),
    ...readdirSync(join(EVAL_DIR, 'en')).filter((f) => /\.(wav|flac)$/.test(f)).map((f) => join(EVAL_DIR, 'en', f)),
  ];
  let [decodedDiffer, fixedDiffer] = [0, 0];
  [firstMs, passMs] = [0, 0];
  for (const file of files) {
    const r = await transcribe(model, file, all);
    [firstMs, passMs] = [firstMs + r.firstMs, passMs + r.passMs];
    if (r.decoded !== r.plain) decodedDiffer++;
    if (r.fixed !== r.plain) fixedDiffer++;
    if (r.fixed !== r.plain) log(`REWRITTEN ${file}: «${r.plain}» → «${r.decoded}» → «${r.fixed}»`);
  }
  log(`false rewrites on ${files.length} unrelated clips (${all.length} patterns): constrained pass changed ${decodedDiffer}, ` +
    `final text changed ${fixedDiffer} (decode ${(firstMs / 1000).toFixed(1)} s, pattern pass ${(passMs / 1000).toFixed(1)} s)`);
});
