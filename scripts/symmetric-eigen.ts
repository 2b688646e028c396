/**
 * Eigen-decomposition of a small dense symmetric matrix by cyclic Jacobi rotations: slow (O(n³) per
 * sweep) but simple and accurate, fine for the 512×512 matrices of fit-speaker-constants.ts and the spectral count (speaker-spectral-count.ts, at most 300×300).
 */

export interface Eigen {
  /** Descending. */
  values: Float64Array;
  /** Row k is the unit eigenvector of values[k]. */
  vectors: Float64Array[];
}

export function symmetricEigen(matrix: Float64Array, n: number, maxSweeps = 30): Eigen {
  const a = matrix.slice();
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    let off = 0;
    let diag = 0;
    for (let i = 0; i < n; i++) {
      diag += a[i * n + i]! ** 2;
      for (let j = i + 1; j < n; j++) off += a[i * n + j]! ** 2;
    }
    if (off <= 1e-22 * diag) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[y * n + y]! - a[x * n + x]!);
  return {
    values: Float64Array.from(order, (i) => a[i * n + i]!),
    vectors: order.map((i) => Float64Array.from({ length: n }, (_, k) => v[k * n + i]!)),
  };
}
