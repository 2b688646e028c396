import { ApiError, createTranscriber, type ModelName, type ProgressEvent, type Transcriber } from '../src/index';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const file = $<HTMLInputElement>('file');
const model = $<HTMLSelectElement>('model');
const go = $<HTMLButtonElement>('go');
const cancel = $<HTMLButtonElement>('cancel');
const stage = $<HTMLDivElement>('stage');
const progress = $<HTMLProgressElement>('progress');
const text = $<HTMLParagraphElement>('text');
const json = $<HTMLPreElement>('json');

const transcribers = new Map<ModelName, Transcriber>();
let controller: AbortController | null = null;

function showProgress(e: ProgressEvent): void {
  // progress messages from the worker can arrive after the result: only a running call may update
  if (!controller) return;
  if (e.stage === 'load') {
    stage.textContent = `Loading model files… ${(e.loaded / 1e6).toFixed(1)} of ${(e.total / 1e6).toFixed(1)} MB`;
    progress.value = e.total ? e.loaded / e.total : 0;
  } else if (e.stage === 'decode-audio') {
    stage.textContent = 'Decoding audio…';
  } else {
    stage.textContent = `Transcribing… ${(e.processedMs / 1000).toFixed(0)} of ${(e.totalMs / 1000).toFixed(0)} s`;
    progress.value = e.totalMs ? e.processedMs / e.totalMs : 0;
  }
}

function transcriberFor(name: ModelName): Transcriber {
  let t = transcribers.get(name);
  if (!t) {
    t = createTranscriber({ model: name, onProgress: showProgress });
    transcribers.set(name, t);
  }
  return t;
}

file.addEventListener('change', () => {
  go.disabled = !file.files?.length;
  stage.textContent = file.files?.length ? 'Ready.' : 'Choose a file.';
});

go.addEventListener('click', async () => {
  const chosen = file.files?.[0];
  if (!chosen) return;
  controller = new AbortController();
  go.disabled = true;
  cancel.disabled = false;
  text.classList.remove('error');
  text.textContent = '';
  json.textContent = '';
  const language = $<HTMLInputElement>('language').value.trim();
  const params = {
    ...(language ? { language } : {}),
    include_timestamps: $<HTMLInputElement>('timestamps').checked,
    include_words: $<HTMLInputElement>('words').checked,
    include_confidence: $<HTMLInputElement>('confidence').checked,
    include_language: $<HTMLInputElement>('detect').checked,
    diarize: $<HTMLInputElement>('diarize').checked,
  };
  const started = performance.now();
  try {
    const result = await transcriberFor(model.value as ModelName).transcribe(chosen, params, { signal: controller.signal });
    text.textContent = result.segments
      ? result.segments.map((s) => `Speaker ${s.speaker_id + 1}: ${s.text}`).join('\n') || '(no speech found)'
      : result.text || '(no speech found)';
    json.textContent = JSON.stringify(result, null, 2);
    stage.textContent = `Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`;
    progress.value = 1;
  } catch (err) {
    text.classList.add('error');
    text.textContent = err instanceof ApiError ? `${err.status} ${err.code ?? ''}: ${err.detail}` : `Error: ${(err as Error).message}`;
    stage.textContent = 'Stopped.';
  } finally {
    go.disabled = false;
    cancel.disabled = true;
    controller = null;
  }
});

cancel.addEventListener('click', () => controller?.abort());
