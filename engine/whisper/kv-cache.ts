import type * as OrtModule from 'onnxruntime-web';

type Tensor = OrtModule.Tensor;

/**
 * A window's cross-attention keys and values, one pair per decoder layer. The window's first decoder
 * run computes them; every later run over the window reads them. They belong to the window
 * (WhisperModel.releaseWindow frees them), never to a KvCache.
 */
export interface CrossCache {
  readonly keys: readonly Tensor[];
  readonly values: readonly Tensor[];
}

/** Self-attention tensors shared by every fork of one cache; freed when the last fork is released. */
class SelfTensors {
  refs = 1;
  constructor(
    readonly keys: readonly Tensor[],
    readonly values: readonly Tensor[],
  ) {}
}

/**
 * The decoder's key/value cache after some tokens: the self-attention part (its own, shared by forks)
 * and the window's cross-attention part. Forks share tensors, counted by reference, so beams
 * of continuations can start from one prefix without copying it. Every cache handed out (by a decoder
 * run or by fork) is released exactly once by whoever holds it.
 */
export class KvCache {
  private self: SelfTensors | null;

  private constructor(
    self: SelfTensors,
    readonly cross: CrossCache,
    /** Cached positions: how many tokens (a sequence, or beams laid out flat) the self part holds. */
    readonly length: number,
  ) {
    this.self = self;
  }

  /** A cache that owns `keys` and `values` (one per layer, [1, heads, length, headDim]). */
  static of(keys: readonly Tensor[], values: readonly Tensor[], cross: CrossCache): KvCache {
    return new KvCache(new SelfTensors(keys, values), cross, keys[0]?.dims[2] ?? 0);
  }

  /** Another holder of the same tensors; each holder releases its own. */
  fork(): KvCache {
    const self = this.live();
    self.refs++;
    return new KvCache(self, this.cross, this.length);
  }

  /**
   * A new cache (with the same cross part) holding only the self-attention positions `keep`, in that
   * order: position keep[j] becomes j. `tensor` makes a float tensor of the given data and dims.
   */
  gather(keep: readonly number[], tensor: (data: Float32Array, dims: number[]) => Tensor): KvCache {
    const self = this.live();
    const pick = (t: Tensor): Tensor => {
      const [batch, heads, length, headDim] = t.dims as [number, number, number, number];
      const src = t.data as Float32Array;
      const dst = new Float32Array(batch * heads * keep.length * headDim);
      for (let h = 0; h < batch * heads; h++) {
        keep.forEach((p, j) => dst.set(src.subarray((h * length + p) * headDim, (h * length + p + 1) * headDim), (h * keep.length + j) * headDim));
      }
      return tensor(dst, [batch, heads, keep.length, headDim]);
    };
    return KvCache.of(self.keys.map(pick), self.values.map(pick), this.cross);
  }

  /** The self-attention key and value of decoder layer `layer`. */
  layer(layer: number): { key: Tensor; value: Tensor } {
    const self = this.live();
    return { key: self.keys[layer]!, value: self.values[layer]! };
  }

  get released(): boolean {
    return this.self === null;
  }

  /** Gives up this holder's share; the tensors are freed with the last share. Idempotent. */
  release(): void {
    const self = this.self;
    if (!self) return;
    this.self = null;
    if (--self.refs > 0) return;
    for (const t of self.keys) t.dispose();
    for (const t of self.values) t.dispose();
  }

  private live(): SelfTensors {
    if (!this.self) throw new Error('KvCache: used after release()');
    return this.self;
  }
}
