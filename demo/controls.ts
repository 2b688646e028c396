/**
 * The transcription options form: reads every control into the spec's parameters (the object form
 * transcribe() takes), the model and the backend.
 */
import type { TranscriptionParamsInput } from '../src/api/params';
import type { BackendChoice, ModelName } from '../engine/protocol';

export interface ControlValues {
  model: string;
  backend: string;
  language: string;
  phrases: string;
  customModelId: string;
  patterns: string;
  biasStrength: string;
  diarize: boolean;
  maxSpeakers: string;
  timestamps: boolean;
  words: boolean;
  confidence: boolean;
  includeLanguage: boolean;
  fillerMode: string;
}

export interface Choice {
  model: ModelName;
  backend: BackendChoice;
  params: TranscriptionParamsInput;
}

/** Control values → parameters. Empty fields are left out (the service's defaults apply); the validator judges the rest. */
export function paramsFromControls(v: ControlValues): Choice {
  const params: TranscriptionParamsInput = {};
  const language = v.language.replace(/\s+/g, '');
  if (language) params.language = language;
  const phrases = v.phrases
    .split('\n')
    .map((p) => p.trim())
    .filter(Boolean);
  if (phrases.length) params.phrases = phrases;
  if (v.customModelId) params.custom_model_id = v.customModelId;
  if (v.patterns.trim()) params.patterns = v.patterns.trim();
  if (v.biasStrength !== '') params.bias_strength = Number(v.biasStrength);
  params.include_timestamps = v.timestamps;
  params.include_words = v.words;
  params.include_confidence = v.confidence;
  params.include_language = v.includeLanguage;
  params.diarize = v.diarize;
  if (v.diarize && v.maxSpeakers) params.max_speakers = Number(v.maxSpeakers);
  if (v.fillerMode) params.filler_mode = v.fillerMode;
  return { model: v.model as ModelName, backend: v.backend as BackendChoice, params };
}

const byId = <T extends HTMLElement>(id: string) => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from index.html`);
  return el as T;
};
const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(id).value;
const checked = (id: string) => byId<HTMLInputElement>(id).checked;

export function readControls(): ControlValues {
  return {
    model: value('model'),
    backend: value('backend'),
    language: value('language'),
    phrases: value('phrases'),
    customModelId: value('custom-model'),
    patterns: value('patterns'),
    biasStrength: value('bias-strength'),
    diarize: checked('diarize'),
    maxSpeakers: value('max-speakers'),
    timestamps: checked('timestamps'),
    words: checked('words'),
    confidence: checked('confidence'),
    includeLanguage: checked('include-language'),
    fillerMode: value('filler-mode'),
  };
}

/** Keeps dependent controls honest: max speakers only with diarization, the slider's number beside it. */
export function bindControls(): void {
  const slider = byId<HTMLInputElement>('bias-strength');
  const out = byId<HTMLOutputElement>('bias-strength-value');
  const diarize = byId<HTMLInputElement>('diarize');
  const maxSpeakers = byId<HTMLSelectElement>('max-speakers');
  const sync = () => {
    out.value = Number(slider.value).toFixed(2);
    maxSpeakers.disabled = !diarize.checked;
  };
  slider.addEventListener('input', sync);
  diarize.addEventListener('change', sync);
  sync();
}
