/**
 * `node bench/parity.mjs [--model whisper-tiny,whisper-base] [--sets eval,dev] [--json file]`: our
 * greedy tokens against transformers.js's on every English clip ≤ 30 s of ../shared/eval and
 * ../shared/dev, one line per clip (identical, or the first divergence and its cause), a summary per model.
 */
import { writeFileSync } from 'node:fs';
import { parseRunnerOptions, splitList } from '../lib/args';
import { loadNodeWhisper, readAudio } from '../bias-set/node-model';
import { parityClips, PARITY_SETS, type ParitySet } from './clips';
import { compareClip, tokenName, type ClipParity, type Divergence } from './compare';
import { loadReference } from './reference';
import type { WhisperVocabulary } from '../../engine/whisper/tokenizer';

export const PARITY_USAGE = 'node bench/parity.mjs [--model whisper-tiny,whisper-base] [--sets eval,dev] [--json file]';

export async function runParity(argv: readonly string[]): Promise<number> {
  const options = parseRunnerOptions(argv, ['model', 'sets', 'json'], PARITY_USAGE);
  if (typeof options === 'number') return options;
  const models = splitList(options.get('model') ?? 'whisper-tiny,whisper-base');
  const sets = splitList(options.get('sets') ?? 'eval,dev');
  for (const s of sets) if (!(s in PARITY_SETS)) throw new Error(`--sets: unknown set ${s} (known: ${Object.keys(PARITY_SETS).join(', ')})`);
  const clips = sets.flatMap((s) => parityClips(s as ParitySet));
  const report: Record<string, { clip: string; result: ClipParity }[]> = {};
  let unexplained = 0;
  for (const name of models) {
    // the loop's parity: both sides on the export's own integer arithmetic (the float encoder is a stage of its own)
    const model = await loadNodeWhisper(name, { floatArithmetic: [] });
    const reference = await loadReference(name);
    const rows: { clip: string; result: ClipParity }[] = (report[name] = []);
    for (const { set, clip, path } of clips) {
      const result = await compareClip(model, reference, readAudio(path), 'en');
      const id = `${set}/${clip.folder}/${clip.file}`;
      rows.push({ clip: id, result });
      const outcome = result.divergence ? describeDivergence(model.vocab, result.divergence) : `identical (${result.ours.length} tokens)`;
      console.log(`${name} ${id}: ${outcome}; log-prob max |diff| ${result.logprobMaxDiff.toExponential(2)}`);
    }
    const summary = summarize(rows.map((r) => r.result));
    unexplained += summary.kinds['unexplained'] ?? 0;
    console.log(`${name}: ${summary.line}`);
    await model.release();
  }
  if (options.has('json')) writeFileSync(options.get('json')!, JSON.stringify(report, null, 1));
  return unexplained === 0 ? 0 : 1;
}

/** "diverges at token 12: ours " the" (-0.71; reference -0.69) vs reference " a" (-0.70): cause". */
export function describeDivergence(v: WhisperVocabulary, d: Divergence): string {
  const name = (id: number | null) => (id === null ? '(none)' : tokenName(v, id));
  const lp = (x: number | null) => (x === null ? '-' : x.toFixed(3));
  return (
    `diverges at token ${d.step}: ours ${name(d.ours)} (ours ${lp(d.ourLogprob)}; reference ${lp(d.referenceLogprobs.ours)}) ` +
    `vs reference ${name(d.reference)} (reference ${lp(d.referenceLogprobs.reference)}) [${d.kind}] ${d.cause}`
  );
}

export function summarize(results: readonly ClipParity[]): { line: string; kinds: Record<string, number> } {
  const kinds: Record<string, number> = {};
  for (const r of results) if (r.divergence) kinds[r.divergence.kind] = (kinds[r.divergence.kind] ?? 0) + 1;
  const identical = results.filter((r) => r.identical).length;
  const mel = Math.max(...results.map((r) => r.melMaxDiff));
  const logprob = Math.max(...results.map((r) => r.logprobMaxDiff));
  const parts = Object.entries(kinds).map(([k, n]) => `${n} ${k}`);
  return { line: `${identical}/${results.length} clips token-identical${parts.length ? `; divergences: ${parts.join(', ')}` : ''}; log-mel max |diff| ${mel.toExponential(2)}; log-prob max |diff| ${logprob.toExponential(2)} nats`, kinds };
}
