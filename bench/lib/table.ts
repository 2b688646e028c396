/** Plain-text tables and number formats for the runners' console output. */

export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const percent = (rate: number | null): string => (rate === null || Number.isNaN(rate) ? '-' : `${(rate * 100).toFixed(1)}%`);
export const fixed = (value: number | null, digits = 2): string => (value === null || Number.isNaN(value) ? '-' : value.toFixed(digits));
export const seconds = (ms: number | null): string => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);
export const megabytes = (bytes: number): string => (bytes > 0 ? `${Math.round(bytes / 2 ** 20)} MB` : '-');
export const ratio = (ours: number | null, peer: number | null): string =>
  ours === null || peer === null || peer === 0 || Number.isNaN(ours) || Number.isNaN(peer) ? '-' : `${(ours / peer).toFixed(2)}x`;

/** The first `max` characters of a transcript, on one line. */
export const snippet = (text: string, max = 60): string => {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
};
