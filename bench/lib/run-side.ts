import type { LoadInfo, LoadOptions, TranscribeJob, TranscriptBody } from '../pages/driver';
import type { Clip } from './manifest';
import { PageSession } from './page-session';
import { RendererMemory } from './renderer-memory';
import { BENCH_PAGES } from './server';

export type Side = keyof typeof BENCH_PAGES;

export interface SideOptions {
  baseUrl: string;
  side: Side;
  model: string;
  threads: number | null;
  encoderWindow?: LoadOptions['encoderWindow'];
  decoding?: LoadOptions['decoding'];
  /** Ours only: the user-supplied segmentation model for diarization. */
  segmentationModel?: LoadOptions['segmentationModel'];
  input: TranscribeJob['input'];
  /** Query string per clip, in the spec's parameter names. */
  paramsFor: (clip: Clip) => string;
  /** Per-clip limit in ms; null: 60 s plus four times the clip's duration. */
  timeoutMs: number | null;
  log: (line: string) => void;
  onClip?: (run: ClipRun) => void;
}

export interface ClipRun {
  clip: Clip;
  params: string;
  transcript: TranscriptBody | null;
  wall_ms: number;
  audio_ms: number;
  error?: string;
}

export interface SideRun {
  side: Side;
  model: string;
  threads: number | null;
  load: LoadInfo | null;
  loadError?: string;
  peakRendererBytes: number;
  clips: ClipRun[];
}

const LOAD_TIMEOUT_MS = 300_000;

/**
 * Runs every clip through one side in a fresh browser, measuring the renderer's peak memory.
 * A clip that throws or runs past its limit is recorded with its error; after a timeout or a
 * crash the browser is replaced (and the model reloaded) so the remaining clips still run.
 */
export async function runSide(clips: readonly Clip[], o: SideOptions): Promise<SideRun> {
  const memory = new RendererMemory();
  const run: SideRun = { side: o.side, model: o.model, threads: o.threads, load: null, peakRendererBytes: 0, clips: [] };
  let session: PageSession | null = null;
  const openSession = async (): Promise<PageSession> => {
    const s = await PageSession.open(o.baseUrl + BENCH_PAGES[o.side], o.log);
    try {
      const load = await s.load({ model: o.model, threads: o.threads, ...(o.encoderWindow ? { encoderWindow: o.encoderWindow } : {}), ...(o.decoding ? { decoding: o.decoding } : {}), ...(o.segmentationModel ? { segmentationModel: o.segmentationModel } : {}) }, LOAD_TIMEOUT_MS);
      run.load ??= load; // the first load is the one reported; reloads after a failure are not
      return s;
    } catch (error) {
      await s.close();
      throw error;
    }
  };

  memory.start();
  try {
    for (const clip of clips) {
      const params = o.paramsFor(clip);
      const job: TranscribeJob = { url: `/__eval/${clip.folder}/${clip.file}`, params, input: o.input, audio_ms: clip.durationMs };
      const limit = o.timeoutMs ?? 60_000 + 4 * (clip.durationMs ?? 120_000);
      let result: ClipRun;
      try {
        if (!run.load && run.loadError && run.clips.length >= 2) throw new Error(`not run: ${run.loadError}`);
        session ??= await openSession();
        const outcome = await session.transcribe(job, limit);
        result = { clip, params, ...outcome };
      } catch (error) {
        const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        result = { clip, params, transcript: null, wall_ms: 0, audio_ms: clip.durationMs ?? 0, error: message };
        if (!run.load) run.loadError ??= message; // after two failed loads the rest are not tried
        memory.stop(); // keep the peak of the browser that is about to go
        memory.start();
        await session?.close();
        session = null;
      }
      run.clips.push(result);
      o.onClip?.(result);
    }
  } finally {
    memory.stop();
    await session?.close();
  }
  run.peakRendererBytes = memory.peakBytes;
  return run;
}
