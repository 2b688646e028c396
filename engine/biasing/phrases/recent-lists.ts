/**
 * What was built from the last `size` phrase lists, most recently used kept: a custom model's requests
 * (up to 10,000 phrases) build it once per worker, not once per window.
 */
export function recentLists<T>(size: number): (phrases: readonly string[], build: () => T) => T {
  const cache = new Map<string, T>();
  return (phrases, build) => {
    const key = phrases.join('\n');
    const hit = cache.get(key);
    if (hit !== undefined) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const built = build();
    cache.set(key, built);
    while (cache.size > size) cache.delete(cache.keys().next().value!);
    return built;
  };
}
