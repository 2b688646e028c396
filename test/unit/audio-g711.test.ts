import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aLawToInt16, ALAW_TABLE, muLawToInt16, MULAW_TABLE } from '../../src/audio/g711';

const dir = mkdtempSync(join(tmpdir(), 'g711-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs sox from raw `input` (described by `from`) to raw `to`, returning the output bytes. */
function sox(input: Uint8Array, from: string[], to: string[]): Buffer {
  const a = join(dir, 'in.raw');
  const b = join(dir, 'out.raw');
  writeFileSync(a, input);
  execFileSync('sox', ['-t', 'raw', '-r', '8000', '-c', '1', ...from, a, '-t', 'raw', ...to, b]);
  return readFileSync(b);
}

const LAWS = [
  { name: 'μ-law', sox: 'mu-law', toInt: muLawToInt16, table: MULAW_TABLE },
  { name: 'A-law', sox: 'a-law', toInt: aLawToInt16, table: ALAW_TABLE },
] as const;

describe.each(LAWS)('G.711 $name', ({ sox: law, toInt, table }) => {
  it('expands every code word exactly as sox does', () => {
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const s16 = sox(codes, ['-e', law, '-b', '8'], ['-e', 'signed', '-b', '16']);
    for (let c = 0; c < 256; c++) {
      expect(toInt(c), `code 0x${c.toString(16)}`).toBe(s16.readInt16LE(c * 2));
      expect(table[c]).toBe(toInt(c) / 32768);
    }
  });

  it("decodes sox's encoding of every 16-bit value to within the standard's quantisation step", () => {
    const ramp = Buffer.alloc(65536 * 2);
    for (let v = -32768; v < 32768; v++) ramp.writeInt16LE(v, (v + 32768) * 2);
    const encoded = sox(ramp, ['-e', 'signed', '-b', '16'], ['-e', law, '-b', '8']);
    expect(encoded.length).toBe(65536);
    let worst = 0;
    const outside: number[] = [];
    for (let i = 0; i < 65536; i++) {
      const v = i - 32768;
      const err = Math.abs(toInt(encoded[i]!) - v);
      // 13/14-bit companding: steps grow with the segment to at most 1/16 of the value, and
      // sox's encoder truncates (a full step) before the expander adds half a step back.
      if (err > Math.abs(v) / 16 + 32) outside.push(v);
      worst = Math.max(worst, err / Math.max(1, Math.abs(v)));
    }
    expect(outside).toEqual([]);
    expect(worst).toBeGreaterThan(0); // companding is lossy: an identity table would fail here
  });
});
