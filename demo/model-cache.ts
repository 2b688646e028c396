/** The "clear cached models" control: shows what the library's model cache holds and empties it. */
import { clearModelCache, modelCacheInfo } from '../src/index';
import { describeError } from './local-api';
import { shellCacheSize } from './offline';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export async function showCacheInfo(): Promise<void> {
  const info = $<HTMLSpanElement>('cache-info');
  try {
    const models = await modelCacheInfo();
    const shell = await shellCacheSize();
    info.textContent = `Cached: ${models.entries} model files (${(models.bytes / 1e6).toFixed(1)} MB), ${shell} app files.`;
  } catch (err) {
    info.textContent = `Cache unavailable: ${describeError(err)}`;
  }
}

export function bindModelCache(): void {
  const button = $<HTMLButtonElement>('clear-models');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const had = await clearModelCache();
      await showCacheInfo();
      const info = $<HTMLSpanElement>('cache-info');
      info.textContent = `${had ? 'Cleared the model cache: the next transcription downloads the models again.' : 'There was no model cache.'} ${info.textContent}`;
    } catch (err) {
      $<HTMLSpanElement>('cache-info').textContent = `Could not clear: ${describeError(err)}`;
    } finally {
      button.disabled = false;
    }
  });
  void showCacheInfo();
}
