export interface BiasSetClip {
  file: string;
  /** Set for clips that live in the eval folder (../shared/eval), relative to it. */
  eval_path?: string;
  lang: string;
  text: string | null;
  speaker: string;
  duration_s: number;
  kind: 'phrase' | 'code' | 'unrelated';
  bias_phrases?: string[];
  must_contain?: string[];
  patterns?: string[];
  codes?: string[];
}

export function generateBiasSet(voices?: string[]): { dir: string; clips: BiasSetClip[] };
