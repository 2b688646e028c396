/**
 * The reference decoder: transformers.js (the devDependency @huggingface/transformers) in Node, on the
 * same q8 files in public/models and on the same onnxruntime-web wasm build as ours (one thread), so a
 * difference in tokens comes from the front end, the graph patches or the decoding rules, not from
 * another runtime. Greedy, one pass over one 30 s window, timestamps on, as its `generate` does with
 * `max_new_tokens` set (without it transformers.js runs its long-form seek loop).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import './ort-handover';
import * as t from '@huggingface/transformers';
import { ROOT } from '../../config/paths';

const MODELS = resolve(ROOT, 'public/models');

export interface ReferencePass {
  /** Generated ids after the prompt (<|startoftranscript|><|lang|><|transcribe|>), the end of text left out. */
  ids: number[];
  /** Whether the pass ended with <|endoftext|> (else it reached max_new_tokens). */
  endedWithEot: boolean;
  /** Log-probability of `id` at step `step` under the reference's processed distribution (its rules applied). */
  logprob(step: number, id: number): number;
}

export interface Reference {
  /** transformers.js's WhisperFeatureExtractor: the 3000-frame log-mel [80 × 3000] of `audio` (16 kHz mono). */
  features(audio: Float32Array): Promise<Float32Array>;
  /** One greedy pass over the log-mel `features` [80 × 3000]. */
  greedy(features: Float32Array, options: { language: string; maxNewTokens: number }): Promise<ReferencePass>;
}

export async function loadReference(model: string): Promise<Reference> {
  t.env.allowRemoteModels = false;
  t.env.allowLocalModels = true;
  t.env.localModelPath = `${MODELS}/`;
  const session_options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' as const };
  // device 'auto' lists no device of its own with a handed-over runtime: the session options name wasm
  const whisper = await t.WhisperForConditionalGeneration.from_pretrained(model, { dtype: 'q8', device: 'auto', session_options });
  const config = JSON.parse(readFileSync(resolve(MODELS, model, 'preprocessor_config.json'), 'utf8'));
  const extractor = new t.WhisperFeatureExtractor(config);
  const frames = config.nb_max_frames as number;
  const melBins = config.feature_size as number;
  return {
    async features(audio) {
      const out = await extractor._call(audio);
      return out.input_features.data as Float32Array;
    },
    async greedy(features, { language, maxNewTokens }) {
      const rows: Float32Array[] = [];
      // runs after every processor of the pass (suppression, timestamp rules), on the row it samples from
      const record = (_ids: bigint[][], logits: t.Tensor) => {
        rows.push((logits.data as Float32Array).slice());
        return logits;
      };
      const processors = new t.LogitsProcessorList();
      // transformers.js appends its Whisper processors to the list it is given: the recorder stays last
      processors[Symbol.iterator] = function* (this: t.LogitsProcessorList) {
        yield* this.processors;
        yield record;
      } as (typeof processors)[typeof Symbol.iterator];
      const input = new t.Tensor('float32', features, [1, melBins, frames]);
      const out = (await whisper.generate({
        inputs: input,
        language,
        task: 'transcribe',
        return_timestamps: true,
        do_sample: false,
        num_beams: 1,
        max_new_tokens: maxNewTokens,
        logits_processor: processors,
      } as Parameters<typeof whisper.generate>[0])) as t.Tensor;
      const sequence = (out.tolist() as bigint[][])[0]!.map(Number);
      const generated = sequence.slice(sequence.length - rows.length);
      const eot = Number(whisper.generation_config!.eos_token_id);
      const endedWithEot = generated.at(-1) === eot;
      return {
        ids: endedWithEot ? generated.slice(0, -1) : generated,
        endedWithEot,
        logprob: (step, id) => logSoftmaxAt(rows[step]!, id),
      };
    },
  };
}

function logSoftmaxAt(row: Float32Array, id: number): number {
  let max = -Infinity;
  for (const v of row) if (v > max) max = v;
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  return row[id]! - max - Math.log(sum);
}
