/**
 * Summarises the per-clip log of phrases.measure.ts (LOG=file), also of a run cut short: term recall,
 * WER on the phrase clips, WER and false insertions on unrelated clips, per condition, over the clips
 * the log holds. Env: IN=log1,log2 (logs of one model; their clips are pooled), CONDS=off,S0.45,S1 (only
 * these conditions, over the clips that have all of them: a matched comparison).
 * `IN=tmp/x.log npx vitest run -c bench/bias-set/vitest.config.ts bench/bias-set/summarize-log.measure.ts`
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { createScorer, errorRate, type ClipErrors } from '../score/error-rate';
import { generateBiasSet } from './generate.mjs';
import { madeUpPhrases } from './phrase-list';

const norm = (s: string) => ` ${s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()} `;
const occurrences = (hyp: string, phrase: string) => norm(hyp).split(norm(phrase)).length - 1;

it('summarise phrases.measure logs', () => {
  const { clips } = generateBiasSet();
  const en = JSON.parse(readFileSync(join(EVAL_DIR, 'en/manifest.json'), 'utf8')) as Array<{ file: string; text: string; duration_s: number }>;
  const byFile = new Map<string, { text: string | null; kind: string; must: string[]; seconds: number }>();
  for (const c of clips) byFile.set(c.file, { text: c.text, kind: c.kind, must: c.must_contain ?? [], seconds: c.duration_s });
  for (const c of en) byFile.set(c.file, { text: c.text, kind: 'unrelated', must: [], seconds: c.duration_s });
  const setPhrases = [...new Set(clips.flatMap((c) => c.bias_phrases ?? []))];
  const phrases = [...setPhrases, ...madeUpPhrases(250 - setPhrases.length)];
  const scorer = createScorer(JSON.parse(readFileSync('public/models/whisper-tiny/normalizer.json', 'utf8')));
  const stats = new Map<string, { hits: number; terms: number; wer: ClipErrors[]; unrelatedWer: ClipErrors[]; insertions: number; seconds: number; clips: number }>();
  const outputs = new Map<string, Map<string, string>>();
  for (const path of (process.env.IN ?? '').split(',').filter(Boolean)) {
    let file = '';
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const entry = /^ {2}([^:]+): (.*)$/.exec(line);
      if (!entry) {
        file = line.trim();
        continue;
      }
      if (!byFile.has(file)) continue;
      if (!outputs.has(file)) outputs.set(file, new Map());
      // without the trace of what was compared ([proposal: …] [splice for …])
      outputs.get(file)!.set(entry[1]!, entry[2]!.replace(/ \[(proposal|splice)[^]*$/, ''));
    }
  }
  const only = process.env.CONDS?.split(',');
  for (const [file, texts] of outputs) {
    const clip = byFile.get(file)!;
    if (only && !only.every((c) => texts.has(c))) continue;
    for (const [cond, text] of texts) {
      if (only && !only.includes(cond)) continue;
      let st = stats.get(cond);
      if (!st) stats.set(cond, (st = { hits: 0, terms: 0, wer: [], unrelatedWer: [], insertions: 0, seconds: 0, clips: 0 }));
      st.clips++;
      if (clip.kind === 'unrelated') {
        st.seconds += clip.seconds;
        st.insertions += phrases.reduce((n, p) => n + occurrences(text, p) - occurrences(clip.text ?? '', p), 0);
        st.unrelatedWer.push(scorer.score(clip.text!, text, 'en'));
      } else {
        for (const term of clip.must) {
          st.terms++;
          if (occurrences(text, term) > 0) st.hits++;
        }
        if (clip.text) st.wer.push(scorer.score(clip.text, text, 'en'));
      }
    }
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log('condition | clips | term recall | WER (phrase clips) | WER (unrelated) | false insertions');
  for (const [cond, s] of stats) {
    console.log(
      `${cond} | ${s.clips} | ${s.hits}/${s.terms} = ${pct(s.hits / Math.max(1, s.terms))} | ${pct(errorRate(s.wer))} | ` +
        `${pct(errorRate(s.unrelatedWer))} (${s.unrelatedWer.length} clips) | ${s.insertions} in ${s.seconds.toFixed(0)} s`,
    );
  }
});
