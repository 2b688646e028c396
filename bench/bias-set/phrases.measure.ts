/**
 * Phrase biasing on the bias set (bench/bias-set/generate.mjs) and on ../shared/eval/en with the real
 * model in Node: recall of the bias terms, WER, and false insertions into unrelated audio, per condition.
 * Every condition decodes as the engine does (engine/decoding/steering.ts): `off` is the unbiased pass alone,
 * `S<x>` adds decodeWithPhrases at bias_strength x (phrase-pass.ts biasPlan), `S<x>` followed by `c<y>`,
 * `s<z>` (repeatable) overrides the plan's credit per phrase, proposal strengths. Env: VOICES=slt,awb (subset), MODEL=whisper-base,
 * CONDITIONS=off,S0.45,S1, EN=0 to skip ../shared/eval's English recordings, ONLY=regex (clip files), LOG=file for progress,
 * LIST=10000 for a list of that many phrases (default 250: the set's terms, then made-up names).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { decodeWindow } from '../../engine/decoding/fallback';
import { biasPlan, decodeWithPhrases, occurrences } from '../../engine/biasing/phrases/phrase-pass';
import { passWords, splicePhrase } from '../../engine/biasing/phrases/splice';
import { createScorer, errorRate, type ClipErrors } from '../score/error-rate';
import { generateBiasSet } from './generate.mjs';
import { falseInsertions, heardSeconds, unrelatedRecordings, windowReference } from './unrelated-recordings';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { madeUpPhrases } from './phrase-list';
import { log } from './progress-log';

interface Clip {
  file: string;
  eval_path?: string;
  text: string | null;
  kind: string;
  speaker: string;
  bias_phrases?: string[];
  must_contain?: string[];
}

it('phrase biasing: recall, WER, false insertions', async () => {
  const { dir, clips } = generateBiasSet();
  const voices = process.env.VOICES?.split(',');
  const conditions = (process.env.CONDITIONS ?? 'off,S0.45,S1').split(',');
  const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
  const selected = clips.filter(
    (c) => c.kind !== 'code' && (!voices || !c.speaker.startsWith('flite-') || voices.includes(c.speaker.slice(6))) && (!only || only.test(c.file)),
  );
  const setPhrases = [...new Set(clips.flatMap((c) => c.bias_phrases ?? []))];
  const phrases = [...setPhrases, ...madeUpPhrases(Number(process.env.LIST ?? 250) - setPhrases.length)];
  const unrelated: Clip[] = process.env.EN !== '0' ? unrelatedRecordings(only) : [];
  const model = await loadNodeWhisper(process.env.MODEL ?? 'whisper-tiny');
  const scorer = createScorer(JSON.parse(readFileSync('public/models/whisper-tiny/normalizer.json', 'utf8')));
  const stats = new Map(
    conditions.map((c) => [c, { hits: 0, terms: 0, wer: [] as ClipErrors[], insertions: 0, unrelatedWer: [] as ClipErrors[], unrelatedAudioS: 0, seconds: 0 }]),
  );
  for (const clip of [...selected, ...unrelated]) {
    const audio = readAudio(clip.eval_path ? join(EVAL_DIR, clip.eval_path) : join(dir, clip.file));
    const enc = await encodeClip(model, audio);
    const opts = { language: 'en', wantAttention: false, audioSeconds: enc.seconds };
    const textOf = (gen: Awaited<ReturnType<typeof decodeWindow>>) => model.vocab.decode(gen.tokens.map((t) => t.id)).trim();
    let t0 = performance.now();
    const first = await decodeWindow(model, enc.encoded, opts);
    const firstSeconds = (performance.now() - t0) / 1000;
    const firstWords = passWords(model.vocab, first.tokens);
    const line: string[] = [];
    for (const cond of conditions) {
      const m = /^S([\d.]+)((?:[cs][\d.]+)*)$/.exec(cond);
      if (cond !== 'off' && !m) throw new Error(`unknown condition ${cond}`);
      const plan = m ? biasPlan(Number(m[1])) : null;
      const overrides = [...(m?.[2] ?? '').matchAll(/([cs])([\d.]+)/g)].map(([, part, value]) => [part, Number(value)] as const);
      if (plan) {
        const boosts = overrides.filter(([part]) => part === 's').map(([, v]) => v);
        if (boosts.length > 0) plan.proposals = boosts;
        for (const [part, v] of overrides) if (part === 'c') plan.credit = v;
      }
      t0 = performance.now();
      let compared = '';
      const gen = plan
        ? await decodeWithPhrases(model, enc.encoded, opts, first, phrases, plan, (c) => {
            const heard = c.gained.map((g) => {
              const at = splicePhrase(model.vocab, firstWords, g, 0);
              return at ? `${g} over "${at.replaced}" sim ${at.match.sim.toFixed(2)} lp ${at.replacedLogprob.toFixed(2)}` : g;
            });
            const lost = c.lost.length > 0 ? `, lost ${c.lost.join(', ')}` : '';
            compared += ` [${c.how}: ${heard.join(', ')}${lost}: cost ${c.costPerPhrase.toFixed(1)}/phrase vs credit ${c.credit.toFixed(2)}; biased: ${c.biasedText.trim()}]`;
          })
        : first;
      const text = textOf(gen);
      const st = stats.get(cond)!;
      st.seconds += firstSeconds + (performance.now() - t0) / 1000;
      if (clip.kind === 'unrelated') {
        st.unrelatedAudioS += heardSeconds(audio.length / 16_000);
        // one window is decoded: a longer clip's transcript covers more than was heard (insertions only)
        const reference = windowReference(clip.text, audio.length / 16_000);
        st.insertions += falseInsertions(text, reference ?? textOf(first), phrases);
        if (reference) st.unrelatedWer.push(scorer.score(reference, text, 'en'));
      } else {
        for (const term of clip.must_contain ?? []) {
          st.terms++;
          if (occurrences(text, term) > 0) st.hits++;
        }
        if (clip.text) st.wer.push(scorer.score(clip.text, text, 'en'));
      }
      line.push(`${cond}: ${text}${compared}`);
    }
    log(`${clip.file}\n  ${line.join('\n  ')}`);
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  log(`model ${process.env.MODEL ?? 'whisper-tiny'}, voices ${voices?.join(',') ?? 'all'}, ${unrelated.length} English clips of ../shared/eval as unrelated audio`);
  log('condition | term recall | WER (phrase clips) | WER (unrelated) | false insertions (unrelated audio) | decode s');
  for (const [cond, s] of stats) {
    const per10 = s.unrelatedAudioS > 0 ? ` = ${((s.insertions * 600) / s.unrelatedAudioS).toFixed(2)}/10 min` : '';
    log(
      `${cond} | ${s.hits}/${s.terms} = ${pct(s.hits / Math.max(1, s.terms))} | ${pct(errorRate(s.wer))} | ${pct(errorRate(s.unrelatedWer))} | ` +
        `${s.insertions} in ${s.unrelatedAudioS.toFixed(0)} s${per10} | ${s.seconds.toFixed(1)}`,
    );
  }
});
