/**
 * The demo page: audio in (file, drop, microphone), every option, progress and cancel, the transcript
 * with playback, exports, custom models and a /v1 console over the page's own service worker.
 */
import {
  createTranscriber,
  type BackendChoice,
  type ModelName,
  type ProgressEvent,
  type Transcriber,
  type Transcript,
} from '../src/index';
import type { TranscriptionHost } from '../src/register';
import { bindConsole } from './console';
import { bindControls, paramsFromControls, readControls } from './controls';
import { CustomModelsPanel } from './custom-models';
import { downloadText } from './download';
import { EXPORT_TYPES, exportTranscript, hasTimes, type ExportFormat } from './export';
import { describeError, startLocalApi } from './local-api';
import { bindModelCache, showCacheInfo } from './model-cache';
import { cacheAppShell } from './offline';
import { Recorder } from './recorder';
import { renderSpeakerTimeline } from './speaker-timeline';
import { renderTranscript } from './transcript-view';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const fileInput = $<HTMLInputElement>('file');
const drop = $<HTMLDivElement>('drop');
const recordButton = $<HTMLButtonElement>('record');
const audioName = $<HTMLParagraphElement>('audio-name');
const player = $<HTMLAudioElement>('player');
const timeline = $<HTMLDivElement>('speaker-timeline');
const go = $<HTMLButtonElement>('go');
const cancel = $<HTMLButtonElement>('cancel');
const stage = $<HTMLParagraphElement>('stage');
const loadBar = $<HTMLProgressElement>('load-progress');
const loadText = $<HTMLSpanElement>('load-text');
const runBar = $<HTMLProgressElement>('run-progress');
const runText = $<HTMLSpanElement>('run-text');
const errorBox = $<HTMLDivElement>('error');
const transcriptView = $<HTMLDivElement>('transcript');
const legend = $<HTMLParagraphElement>('legend');
const json = $<HTMLPreElement>('json');
const apiStatus = $<HTMLParagraphElement>('api-status');
const exportButtons = [...document.querySelectorAll<HTMLButtonElement>('.exports button[data-format]')];

let audio: { blob: Blob; name: string; url: string } | null = null;
let transcript: Transcript | null = null;
let controller: AbortController | null = null;

// ---- engine: one transcriber per model and backend, the others disposed to free memory ----

const transcribers = new Map<string, Transcriber>();
const loaded = new Set<string>();

function showLoad(key: string, e: ProgressEvent): void {
  if (e.stage !== 'load') return;
  loadBar.value = e.total ? e.loaded / e.total : 0;
  loadText.textContent = `${(e.loaded / 1e6).toFixed(1)} of ${(e.total / 1e6).toFixed(1)} MB`;
  if (controller) stage.textContent = `Loading ${key.split('/')[0]}…`;
}

function transcriberFor(model: ModelName, backend: BackendChoice): Transcriber {
  const key = `${model}/${backend}`;
  let t = transcribers.get(key);
  if (!t) {
    for (const [k, other] of transcribers) {
      void other.dispose();
      transcribers.delete(k);
      loaded.delete(k);
    }
    t = createTranscriber({ model, backend, onProgress: (e) => showLoad(key, e) });
    transcribers.set(key, t);
    loadBar.value = 0;
    loadText.textContent = 'not loaded';
  }
  return t;
}

/** /v1 transcriptions are served with whatever model and backend the form shows. */
const host: TranscriptionHost = {
  transcribe(input, params, options) {
    const { model, backend } = paramsFromControls(readControls());
    return transcriberFor(model, backend).transcribe(input, params, options);
  },
};

// ---- /v1 service ----

const apiReady = startLocalApi(host);
const customModels = new CustomModelsPanel();
apiReady
  .then(async ({ api }) => {
    apiStatus.textContent = api.controlled ? `/v1 service: ready at ${api.baseUrl}` : '/v1 service: registered (reload to use it)';
    apiStatus.classList.add(api.controlled ? 'ok' : 'warn');
    await customModels.refresh();
    await cacheAppShell();
    await showCacheInfo();
  })
  .catch((err) => {
    apiStatus.textContent = `/v1 service unavailable: ${describeError(err)}`;
    apiStatus.classList.add('bad');
  });
function showNetwork(): void {
  document.body.classList.toggle('offline', !navigator.onLine);
  $<HTMLSpanElement>('network').textContent = navigator.onLine ? '' : 'offline';
}
addEventListener('online', showNetwork);
addEventListener('offline', showNetwork);
showNetwork();
bindConsole();
bindModelCache();
bindControls();

// ---- audio in ----

function setAudio(blob: Blob, name: string): void {
  if (audio) URL.revokeObjectURL(audio.url);
  audio = { blob, name, url: URL.createObjectURL(blob) };
  player.src = audio.url;
  player.hidden = false;
  audioName.textContent = `${name} · ${(blob.size / 1024).toFixed(0)} KB`;
  audioName.classList.remove('muted');
  go.disabled = controller !== null;
  stage.textContent = 'Ready: press Transcribe.';
}

fileInput.addEventListener('change', () => {
  const f = fileInput.files?.[0];
  if (f) setAudio(f, f.name);
});

drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer?.files[0];
  if (f) setAudio(f, f.name);
});
drop.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    fileInput.click();
  }
});

const recorder = new Recorder();
let recordTimer = 0;
recordButton.addEventListener('click', async () => {
  try {
    if (!recorder.recording) {
      await recorder.start();
      recordButton.textContent = '■ Stop';
      recordButton.setAttribute('aria-pressed', 'true');
      recordButton.classList.add('recording');
      recordTimer = window.setInterval(() => {
        audioName.textContent = `Recording… ${(recorder.elapsedMs / 1000).toFixed(0)} s`;
      }, 250);
    } else {
      clearInterval(recordTimer);
      const blob = await recorder.stop();
      recordButton.textContent = '● Record';
      recordButton.setAttribute('aria-pressed', 'false');
      recordButton.classList.remove('recording');
      setAudio(blob, `recording-${new Date().toISOString().slice(11, 19).replace(/:/g, '')}.${blob.type.includes('mp4') ? 'm4a' : 'webm'}`);
    }
  } catch (err) {
    clearInterval(recordTimer);
    showError(`Recording failed: ${describeError(err)}`);
  }
});

// ---- transcription ----

function showError(message: string | null): void {
  errorBox.hidden = message === null;
  errorBox.textContent = message ?? '';
}

function seek(ms: number): void {
  player.currentTime = ms / 1000;
  void player.play().catch(() => undefined);
}

function showRun(e: ProgressEvent): void {
  if (!controller) return; // late messages after the result
  if (e.stage === 'decode-audio') {
    stage.textContent = 'Decoding audio…';
    runText.textContent = 'decoding audio';
  } else if (e.stage === 'transcribe') {
    loadBar.value = 1;
    runBar.value = e.totalMs ? e.processedMs / e.totalMs : 0;
    runText.textContent = `${(e.processedMs / 1000).toFixed(0)} of ${(e.totalMs / 1000).toFixed(0)} s`;
    stage.textContent = 'Transcribing…';
  }
}

function setExports(t: Transcript | null): void {
  for (const b of exportButtons) {
    const timed = b.dataset.format === 'srt' || b.dataset.format === 'vtt';
    b.disabled = !t || (timed && !hasTimes(t));
    b.title = t && timed && !hasTimes(t) ? 'Subtitles need times: turn on "timestamps" and transcribe again.' : '';
  }
}

go.addEventListener('click', async () => {
  if (!audio || controller) return;
  const { model, backend, params } = paramsFromControls(readControls());
  controller = new AbortController();
  const { signal } = controller;
  go.disabled = true;
  cancel.disabled = false;
  showError(null);
  runBar.value = 0;
  runText.textContent = 'starting';
  stage.textContent = 'Starting…';
  const started = performance.now();
  try {
    // The engine worker should start under the service worker's control, so its files get cached.
    await Promise.race([apiReady.catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
    const key = `${model}/${backend}`;
    const t = transcriberFor(model, backend);
    const result = await t.transcribe(audio.blob, params, { signal, onProgress: showRun });
    loaded.add(key);
    transcript = result;
    renderTranscript(transcriptView, result, seek);
    renderSpeakerTimeline(timeline, result.segments, result.duration_ms ?? (Number.isFinite(player.duration) ? player.duration * 1000 : 0), seek);
    legend.hidden = !params.include_confidence || !params.include_words;
    json.textContent = JSON.stringify(result, null, 2);
    setExports(result);
    loadBar.value = 1;
    loadText.textContent = `${model} loaded`;
    runBar.value = 1;
    runText.textContent = 'done';
    stage.textContent = `Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`;
    void cacheAppShell().then(showCacheInfo);
  } catch (err) {
    showError(describeError(err));
    runText.textContent = signal.aborted ? 'cancelled' : 'failed';
    stage.textContent = signal.aborted ? 'Cancelled.' : 'Stopped by an error.';
  } finally {
    controller = null;
    go.disabled = !audio;
    cancel.disabled = true;
  }
});

cancel.addEventListener('click', () => controller?.abort(new DOMException('cancelled by you', 'AbortError')));

for (const b of exportButtons) {
  b.addEventListener('click', () => {
    if (!transcript) return;
    const format = b.dataset.format as ExportFormat;
    try {
      const base = (audio?.name ?? 'transcript').replace(/\.[^.]+$/, '');
      downloadText(exportTranscript(transcript, format), `${base}.${format}`, EXPORT_TYPES[format]);
    } catch (err) {
      showError(describeError(err));
    }
  });
}
