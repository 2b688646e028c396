import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { decodeAudio, type AudioEncoding } from '../../src/audio/index';

/** Rows of the format table in scripts/make-audio-fixtures.mjs (made with ffmpeg by globalSetup). */
interface Row { name: string; encoding: AudioEncoding; sampleRate: number; channels: number; ref?: string }

const compressed = (name: string) => /\.(flac|mp3|ogg|webm|mka|aac|m4a|mp4|mov|3gp)$/.test(name);
/** Bound on one decode of an 11 s fixture, damaged or not (they take well under a second). */
const SETTLE_MS = 20_000;

let rows: Row[] = [];
beforeAll(async () => {
  rows = (await (await fetch('/__fixtures/audio/manifest.json')).json()).rows.filter((r: Row) => r.ref && compressed(r.name));
});

/** Deterministic byte positions, so a failure reproduces. */
function* positions(seed: number, n: number, length: number) {
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    yield s % length;
  }
}

async function settle(bytes: Uint8Array, row: Row): Promise<string> {
  const timer = new Promise<string>((r) => setTimeout(() => r('hang'), SETTLE_MS));
  const run = decodeAudio(bytes.slice().buffer, row).then(
    (out) => (out instanceof Float32Array && out.every(Number.isFinite) ? 'decoded' : 'bad output'),
    (e: unknown) => (e instanceof ApiError && e.status === 400 && e.code === 'invalid_audio' && e.detail.length > 10 ? 'invalid_audio' : `threw ${String(e)}`),
  );
  return Promise.race([run, timer]);
}

describe('streamed decoding of damaged compressed files', () => {
  it('every cut and byte flip ends as samples or a clear invalid_audio, never a hang or another error', async () => {
    expect(rows.length).toBeGreaterThanOrEqual(10);
    const outcomes = new Map<string, number>();
    const failures: string[] = [];
    for (const row of rows) {
      const good = new Uint8Array(await (await fetch(`/__fixtures/audio/${row.name}`)).arrayBuffer());
      const variants: [string, Uint8Array][] = [];
      for (const f of [0.02, 0.3, 0.77, 0.999]) variants.push([`cut at ${f}`, good.subarray(0, Math.floor(good.length * f))]);
      for (const seed of [1, 2, 3]) {
        const flipped = good.slice();
        for (const p of positions(seed * 977 + good.length, 40, flipped.length)) flipped[p] = flipped[p]! ^ 0xff;
        variants.push([`40 flips, seed ${seed}`, flipped]);
      }
      for (const [what, bytes] of variants) {
        const outcome = await settle(bytes, row);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (outcome !== 'decoded' && outcome !== 'invalid_audio') failures.push(`${row.name} ${what}: ${outcome}`);
      }
    }
    console.log(`damaged compressed inputs: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    expect(failures).toEqual([]);
    // Still decoding afterwards.
    const ok = await decodeAudio(await (await fetch('/__fixtures/audio/ogg-opus.ogg')).arrayBuffer(), { encoding: 'auto', sampleRate: 16000, channels: 1 });
    expect(ok.length).toBeGreaterThan(16000 * 10);
  });
});
