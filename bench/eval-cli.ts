import { parseRunnerOptions } from './lib/args';

const USAGE = `npm run eval [-- --data DIR --model NAME[,NAME] --params QUERY --out FILE --folders LIST --threads N --timeout S --candidates N --encoder-window fit|full --decoding fast|accurate --segmentation]
  Transcribes every clip of the manifests under DIR (en/ multi/ diar/ bias/ long/) with this library
  in headless Chromium and prints WER (CER for zh/ja/ko) per folder and the real-time factor.
  --data    evaluation set laid out like ../shared/eval (default: STS_EVAL_DIR or ../shared/eval)
  --model   whisper-tiny, whisper-base and/or whisper-small (default: whisper-tiny,whisper-base)
  --params  spec query parameters for every clip, e.g. "language=en&include_words=true"
            (default: language=en for en/, nothing for the other folders)
  --out     JSON file: one entry per clip and model {folder, file, transcript, wall_ms, audio_ms, model}
  --folders only these folders (default: all present)
  --threads WASM threads (default: the library's choice)
  --timeout seconds per clip (default: 60 + 4 x the clip's duration)
  --decoding fast (greedy) or accurate (5 beams) at temperature 0 (default: the library's choice per model)
  --segmentation  diarize with the user-supplied pretrained segmentation model (pyannote segmentation-3.0
            from ../shared/models, STS_MODELS_DIR), as TranscriberConfig.segmentationModel
  --candidates N  adds language=<the clip's language and N-1 others> (language ID among candidates)
  --language-report N  issue 5's report: each clip three times (no language; among N candidates holding
            the true one; the true language given), all with language, words, timestamps and confidence;
            prints per clip the languages found, language-ID accuracy both ways, WER/CER auto vs given,
            word-timing sanity and confidence bands
  --bias    instead of the folder eval, the biasing table (bench/bias-set/eval-bias.mjs; --bias --help)
  Transcripts with language, words or confidence also get language-ID accuracy, word-timing sanity and
  accuracy per confidence band; diarized ones (diarize=true, with include_timestamps=true for DER) get
  per folder DER at collar 0.25 and 0, its parts and the share of clips with the right speaker count.`;

/** Parsed options (and STS_EVAL_DIR set from --data), or the exit code when there is nothing to run. */
export function parseOptions(argv: string[]): Map<string, string> | number {
  return parseRunnerOptions(argv, ['data', 'model', 'params', 'out', 'folders', 'threads', 'timeout', 'candidates', 'encoder-window', 'decoding', 'language-report'], USAGE, ['segmentation']);
}
