import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../config/paths';

// Issue 34 asks that every constant of engine/biasing/ have a line in one tuning table, saying the measure
// and the set it was chosen on. This keeps the table and the code from drifting apart.
const CODE_DIR = join(ROOT, 'engine/biasing');
const TABLE_FILE = join(ROOT, 'bench/bias-set/README.md');
const TABLE_HEADING = '## Every constant of `engine/biasing/`';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Module-level UPPER_CASE constants, by name, with the file (relative to engine/biasing) declaring each. */
function constantsInCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles(CODE_DIR)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/^(?:export )?const ([A-Z][A-Z0-9_]*) =/gm)) found.set(m[1]!, relative(CODE_DIR, file));
  }
  return found;
}

/** The table's rows: each constant named (in backticks) in a row's first cell, with the row's file cell. */
function constantsInTable(): Map<string, string> {
  const text = readFileSync(TABLE_FILE, 'utf8');
  const start = text.indexOf(TABLE_HEADING);
  expect(start, `${TABLE_HEADING} in bench/bias-set/README.md`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + TABLE_HEADING.length);
  const rows = text.slice(start, end < 0 ? undefined : end).split('\n').filter((l) => l.startsWith('| `'));
  const named = new Map<string, string>();
  for (const row of rows) {
    const [names, file] = row.split('|').slice(1, 3).map((c) => c.trim());
    for (const m of names!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) named.set(m[1]!, file!);
  }
  return named;
}

describe('the tuning table of engine/biasing/ (bench/bias-set/README.md)', () => {
  it('has a row for every constant in the code, and names none that is gone, with the file that declares it', () => {
    const code = constantsInCode();
    const table = constantsInTable();
    expect(code.size).toBeGreaterThan(20);
    expect([...code.keys()].filter((c) => !table.has(c)).sort(), 'constants without a row').toEqual([]);
    expect([...table.keys()].filter((c) => !code.has(c)).sort(), 'rows naming no constant').toEqual([]);
    for (const [name, file] of code) expect(table.get(name), name).toBe(file);
  });
});
