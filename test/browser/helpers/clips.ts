import { createScorer, errorRate, type Scorer } from '../../../bench/score/error-rate';

/** Eval clips as the browser tests fetch them (served from ../shared/eval at /__eval/). */
export interface ManifestEntry {
  file: string;
  lang: string;
  text: string;
  duration_s: number;
}

export async function evalBytes(path: string): Promise<ArrayBuffer> {
  const res = await fetch(`/__eval/${path}`);
  if (!res.ok) throw new Error(`eval clip ${path}: HTTP ${res.status}`);
  return res.arrayBuffer();
}

export async function manifest(folder: string): Promise<ManifestEntry[]> {
  const res = await fetch(`/__eval/${folder}/manifest.json`);
  return res.json();
}

let scorer: Promise<Scorer> | undefined;

/** WER (or CER) by the eval conventions, with the model's British-to-American spelling map. */
export async function errorRateOf(reference: string, hypothesis: string, lang: string): Promise<number> {
  scorer ??= fetch('/models/whisper-tiny/normalizer.json')
    .then((r) => r.json())
    .then((spellings) => createScorer(spellings));
  return errorRate([(await scorer).score(reference, hypothesis, lang)]);
}
