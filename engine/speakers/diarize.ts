/**
 * The engine's entry point to diarization. Feed it each window's block-2 hidden states as the encoder
 * produces them, then ask for speaker turns once the recording is done, and attribute the transcript
 * with attributeSpeakers (assign.ts).
 */
import { speechRegions, type SpeechRegion, type SpeechRegionOptions } from '../vad/windows';
import { clusterSpeakers, type ClusterOptions } from './cluster';
import type { SpeakerConstants } from './constants';
import { EMBEDDING_DEFAULTS, embedSpan, heardWindow, regionsInWindow, windowEmbeddings, type EmbeddingOptions, type SpeakerEmbedding } from './embed';
import { speakerTurns, type SpeakerTurn, type TurnOptions } from './turns';

/*
 * Speech regions for diarization differ from the transcription ones (measured as one-speaker DER
 * against the RTTM speech of the three diar clips, tmp sweep over onset 0.15-0.5, offset 0.05-0.35,
 * padding 0-600 ms): Silero turns on late and off early on far-field meeting speech, so the
 * offset is low (0.1) and 400 ms pads each side: missed speech 2.1% + false alarm 1.1% at collar
 * 0.25 (2.9% + 5.3% at collar 0), where the transcription settings' 1 s lead-in costs false alarm
 * and Silero's usual 0.5/0.35 with no padding misses 16%.
 */
export const DIARIZATION_REGIONS: Readonly<SpeechRegionOptions> = {
  onsetThreshold: 0.35,
  offsetThreshold: 0.1,
  minSpeechMs: 250,
  minSilenceMs: 300,
  padBeforeMs: 400,
  padAfterMs: 400,
};

/** Speech regions for diarization from the engine's Silero probabilities (512-sample frames). */
export function diarizationRegions(probs: Float32Array, totalSamples: number, options: SpeechRegionOptions = {}): SpeechRegion[] {
  return speechRegions(probs, { ...DIARIZATION_REGIONS, ...options, totalSamples });
}

/*
 * Where the speaker embeddings are pooled: the same detection without the 400 ms padding. The padding
 * is there so the turns cover speech that Silero finds late or drops early; pooled into a 1.5 s piece,
 * its (mostly) silence, breath or the other speaker's tail blurs the piece. Measured on the diar
 * clips, true count, shipped constants (bench/diarization.mjs): AMI dev00 confusion 17.1% with padded
 * pieces, 5.4% with unpadded ones; the padded regions still decide what is covered.
 */
export const EVIDENCE_REGIONS: Readonly<SpeechRegionOptions> = { ...DIARIZATION_REGIONS, padBeforeMs: 0, padAfterMs: 0 };

/** Speech regions the embeddings are pooled from (no padding), absolute samples. */
export function evidenceRegions(probs: Float32Array, totalSamples: number, options: SpeechRegionOptions = {}): SpeechRegion[] {
  return speechRegions(probs, { ...EVIDENCE_REGIONS, ...options, totalSamples });
}

export interface DiarizerOptions {
  embedding: EmbeddingOptions;
  /**
   * Subtract the recording's mean embedding before clustering: what all pieces share (room, microphone,
   * what the fitted constants missed) stops counting as similarity. Measured on the diar clips: the
   * same/different-speaker AUC rises and the cosine between speakers centres near 0.
   */
  recordingCentering: boolean;
  cluster: Partial<ClusterOptions>;
  turns: Partial<TurnOptions>;
  /**
   * Let speech regions too short to cluster (under embedding.minMs) vote with their own embedding.
   * Off: with unpadded evidence regions these are 0.25-0.5 s slivers whose pooled features are noise
   * (whole 1.5-3 s crops already have a 10.8% verification EER); the pieces within 3 s decide them
   * instead. Measured on the diar clips (bench/diarization.mjs): AMI dev00 DER 15.8% with their votes,
   * 11.0% without; the other two RTTM clips unchanged. One clip moved, so this is weak evidence.
   */
  shortRegionVotes: boolean;
  /**
   * Short embeddings (`spanMs` long every `hopMs`) over the evidence regions for re-segmentation
   * (turns.frameWeight); null computes none.
   */
  frames: { spanMs: number; hopMs: number } | null;
}

/*
 * 1 s frames every 0.5 s, weighted 0.5 against the covering 1.5 s pieces (TURN_DEFAULTS.frameWeight):
 * the step's speaker follows what is said at that moment more closely than the 1.5 s pieces alone.
 * Measured with bench/diarization.mjs --sets ../shared/dev,../shared/eval (own VAD, auto count), pooled
 * DER c0.25: 21.4% without frames, 20.8% with (dev 28.7% -> 28.7%, eval 11.1% -> 9.7%); 0.5 s frames
 * 21.1%, 0.75 s 20.9%, weight 1 with 1 s frames 21.6%.
 */
export const FRAME_DEFAULTS = { spanMs: 1000, hopMs: 500 } as const;

export class SpeakerDiarizer {
  private readonly embeddings: SpeakerEmbedding[] = [];
  /** Embeddings of speech too short to cluster; they are classified after clustering. */
  private readonly shortPieces: SpeakerEmbedding[] = [];
  private readonly frames: SpeakerEmbedding[] = [];
  private regions: SpeechRegion[];
  private evidence: SpeechRegion[];
  private readonly options: DiarizerOptions;

  /** The engine's diarizer: covered regions and embedding regions both from its Silero probabilities. */
  static fromVad(constants: SpeakerConstants, probs: Float32Array, totalSamples: number, options: Partial<DiarizerOptions> = {}): SpeakerDiarizer {
    const diarizer = new SpeakerDiarizer(constants, [], options);
    diarizer.hear(probs, totalSamples);
    return diarizer;
  }

  /**
   * The recording's speech as heard so far (the engine's Silero probabilities over its first
   * `totalSamples`), for a recording that arrives in pieces: call it again as more arrives, before the
   * windows of the new audio and before finish().
   */
  hear(probs: Float32Array, totalSamples: number): void {
    this.regions = diarizationRegions(probs, totalSamples);
    this.evidence = evidenceRegions(probs, totalSamples);
  }

  /**
   * `regions`: the speech the turns cover (diarizationRegions), absolute samples; `evidence`: where
   * embeddings are pooled (evidenceRegions; default: `regions`).
   */
  constructor(
    private readonly constants: SpeakerConstants,
    regions: readonly SpeechRegion[],
    options: Partial<DiarizerOptions> = {},
    evidence: readonly SpeechRegion[] = regions,
  ) {
    this.regions = regions.map((r) => ({ ...r }));
    this.evidence = evidence.map((r) => ({ ...r }));
    this.options = { embedding: EMBEDDING_DEFAULTS, recordingCentering: true, cluster: {}, turns: {}, shortRegionVotes: false, frames: FRAME_DEFAULTS, ...options };
  }

  /**
   * One encoder window: `hidden` is the feature tensor's data (SPEAKER_FEATURES, [1, positions, channels]),
   * [startSample, endSample) the window's audio in the recording; the positions past it give no
   * embeddings (heardWindow). Copies what it needs.
   */
  addWindow(hidden: Float32Array, positions: number, startSample: number, endSample: number): void {
    const window = heardWindow(hidden, positions, this.constants.dims, startSample, endSample);
    this.embeddings.push(...windowEmbeddings(window, this.evidence, this.constants, this.options.embedding));
    const f = this.options.frames;
    if (f) this.frames.push(...windowEmbeddings(window, this.evidence, this.constants, { subWindowMs: f.spanMs, hopMs: f.hopMs, minMs: 0 }));
    const min = this.options.embedding.minMs * 16;
    for (const r of regionsInWindow(window, this.evidence)) {
      if (r.endSample - r.startSample < min) {
        this.shortPieces.push({ ...r, vector: embedSpan(window, r.startSample, r.endSample, this.constants) });
      }
    }
  }

  /** Speaker turns over the speech regions seen so far; speakers 0-indexed in order of first appearance. */
  finish(maxSpeakers: number | null): SpeakerTurn[] {
    let pieces = this.embeddings;
    let short = this.shortPieces;
    let frames = this.frames;
    if (this.options.recordingCentering && pieces.length > 1) {
      const mean = meanVector(pieces.map((e) => e.vector));
      const center = (e: SpeakerEmbedding): SpeakerEmbedding => ({ ...e, vector: unit(e.vector.map((v, d) => v - mean[d]!)) });
      pieces = pieces.map(center);
      short = short.map(center);
      frames = frames.map(center);
    }
    const labels = clusterSpeakers(
      pieces.map((e) => e.vector),
      { ...this.options.cluster, maxSpeakers },
    );
    return speakerTurns(this.regions, pieces, labels, this.options.shortRegionVotes ? short : [], this.options.turns, frames);
  }
}

function meanVector(vectors: readonly Float32Array[]): Float32Array {
  const mean = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let d = 0; d < mean.length; d++) mean[d]! += v[d]! / vectors.length;
  return mean;
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
  return v.map((x) => x * inv);
}

/**
 * Turns for a diarized request with max_speakers=1, which computes no speaker features: the
 * diarization regions, all speaker 0. The transcript's segments are then timed by speech and split at
 * pauses (attributeSpeakers, assign.ts) as they are with several speakers.
 */
export function oneSpeakerTurns(probs: Float32Array, totalSamples: number): SpeakerTurn[] {
  return diarizationRegions(probs, totalSamples).map((r) => ({ startMs: r.startSample / 16, endMs: r.endSample / 16, speaker: 0 }));
}
