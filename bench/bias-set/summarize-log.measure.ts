/**
 * Summarises the per-clip log of phrases.measure.ts (LOG=file), also of a run cut short: term recall,
 * WER on the phrase clips, WER and false insertions on unrelated clips, per condition, over the clips
 * the log holds. Env: IN=log1,log2 (logs of one model; their clips are pooled), CONDS=off,S0.45,S1 (only
 * these conditions, over the clips that have all of them: a matched comparison), ONLY=regex (clip files:
 * `-(slt|kal)\.wav$` for one voice pair, `^(?!.*-(slt|kal|awb|rms)\.wav$)` for the real recordings).
 * `IN=tmp/x.log npx vitest run -c bench/bias-set/vitest.config.ts bench/bias-set/summarize-log.measure.ts`
 */
import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { occurrences } from '../../engine/biasing/phrases/hunks';
import { createScorer, errorRate, type ClipErrors } from '../score/error-rate';
import { generateBiasSet } from './generate.mjs';
import { madeUpPhrases } from './phrase-list';
import { falseInsertions, heardSeconds, unrelatedRecordings, windowReference } from './unrelated-recordings';

it('summarise phrases.measure logs', () => {
  const { clips } = generateBiasSet();
  const byFile = new Map<string, { text: string | null; kind: string; must: string[]; seconds: number }>();
  for (const c of clips) byFile.set(c.file, { text: c.text, kind: c.kind, must: c.must_contain ?? [], seconds: c.duration_s });
  for (const c of unrelatedRecordings()) byFile.set(c.file, { text: c.text, kind: 'unrelated', must: [], seconds: c.duration_s });
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
  const files = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
  for (const [file, texts] of outputs) {
    const clip = byFile.get(file)!;
    if ((only && !only.every((c) => texts.has(c))) || (files && !files.test(file))) continue;
    for (const [cond, text] of texts) {
      if (only && !only.includes(cond)) continue;
      let st = stats.get(cond);
      if (!st) stats.set(cond, (st = { hits: 0, terms: 0, wer: [], unrelatedWer: [], insertions: 0, seconds: 0, clips: 0 }));
      if (clip.kind === 'unrelated') {
        // as phrases.measure.ts: one window heard, insertions against the unbiased pass where no transcript covers it
        const reference = windowReference(clip.text, clip.seconds);
        const heard = reference ?? texts.get('off');
        if (heard === undefined) continue;
        st.clips++;
        st.seconds += heardSeconds(clip.seconds);
        st.insertions += falseInsertions(text, heard, phrases);
        if (reference) st.unrelatedWer.push(scorer.score(reference, text, 'en'));
      } else {
        st.clips++;
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
