/**
 * The engine's entry point to diarization. Feed it each window's block-2 hidden states as the encoder
 * produces them, then ask for speaker turns once the recording is done, and attribute the transcript
 * with attributeSpeakers (assign.ts).
 */
import { speechRegions, type SpeechRegion, type SpeechRegionOptions } from '../segment-speech';
import { clusterSpeakers, type ClusterOptions } from './cluster';
import type { SpeakerConstants } from './constants';
import { EMBEDDING_DEFAULTS, embedSpan, regionsInWindow, windowEmbeddings, type EmbeddingOptions, type HiddenWindow, type SpeakerEmbedding } from './embed';
import { speakerTurns, type SpeakerTurn, type TurnOptions } from './turns';

/*
 * Speech regions for diarization differ from the transcription ones: no padding (padding is silence
 * that would be pooled into the embeddings and scored as false alarm) and a lower onset, since in
 * meetings the quieter far-field speaker often stays below Silero's 0.5 (measured on the AMI clips).
 */
export const DIARIZATION_REGIONS: Readonly<SpeechRegionOptions> = {
  onsetThreshold: 0.5,
  offsetThreshold: 0.35,
  minSpeechMs: 250,
  minSilenceMs: 300,
  padBeforeMs: 0,
  padAfterMs: 0,
};

/** Speech regions for diarization from the engine's Silero probabilities (512-sample frames). */
export function diarizationRegions(probs: Float32Array, totalSamples: number, options: SpeechRegionOptions = {}): SpeechRegion[] {
  return speechRegions(probs, { ...DIARIZATION_REGIONS, ...options, totalSamples });
}

export interface DiarizerOptions {
  embedding: EmbeddingOptions;
  cluster: Partial<ClusterOptions>;
  turns: Partial<TurnOptions>;
}

export class SpeakerDiarizer {
  private readonly embeddings: SpeakerEmbedding[] = [];
  /** Embeddings of speech too short to cluster; they are classified after clustering. */
  private readonly shortPieces: SpeakerEmbedding[] = [];
  private readonly regions: SpeechRegion[];
  private readonly options: DiarizerOptions;

  /** `regions`: the recording's diarization speech regions (diarizationRegions), absolute samples. */
  constructor(
    private readonly constants: SpeakerConstants,
    regions: readonly SpeechRegion[],
    options: Partial<DiarizerOptions> = {},
  ) {
    this.regions = regions.map((r) => ({ ...r }));
    this.options = { embedding: EMBEDDING_DEFAULTS, cluster: {}, turns: {}, ...options };
  }

  /**
   * One encoder window: `hidden` is the SPEAKER_FEATURE_TENSOR output's data ([1, positions, 512]),
   * `startSample` where the window's audio starts in the recording. Copies what it needs.
   */
  addWindow(hidden: Float32Array, positions: number, startSample: number): void {
    const window: HiddenWindow = { hidden, positions, dims: this.constants.dims, startSample };
    this.embeddings.push(...windowEmbeddings(window, this.regions, this.constants, this.options.embedding));
    const min = this.options.embedding.minMs * 16;
    for (const r of regionsInWindow(window, this.regions)) {
      if (r.endSample - r.startSample < min) {
        this.shortPieces.push({ ...r, vector: embedSpan(window, r.startSample, r.endSample, this.constants) });
      }
    }
  }

  /** Speaker turns over the speech regions seen so far; speakers 0-indexed in order of first appearance. */
  finish(maxSpeakers: number | null): SpeakerTurn[] {
    const labels = clusterSpeakers(
      this.embeddings.map((e) => e.vector),
      { ...this.options.cluster, maxSpeakers },
    );
    return speakerTurns(this.regions, this.embeddings, labels, this.shortPieces, this.options.turns);
  }
}
