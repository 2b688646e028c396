/**
 * Text Whisper writes after the speech it heard. On a window with silence after the speech, a pass can
 * run on past the last word, most often by repeating its last sentence. The alignment (cross-attention
 * DTW over the window's audio) then has no audio left for that text and packs it into the audio's last
 * frame. Pure functions: no ORT.
 */

interface TimedWord {
  startMs: number;
}

/**
 * A word needs at least this long to be spoken: OpenAI's word-anomaly score (transcribe.py, behind its
 * hallucination_silence_threshold) adds 15 per second under 133 ms, which reaches its bar of 1 per word
 * at 66 ms.
 */
const SPOKEN_MIN_MS = 133 - 1000 / 15;

/**
 * How many of a pass's words (in order, aligned times from the window's start) were heard: all but its
 * longest trailing run that the audio left after the run's earliest word (`audioMs` ends it) could not
 * hold at SPOKEN_MIN_MS a word. That is OpenAI's test of a segment (anomaly 1 a word on average) applied
 * to the run of words at the end, on the time they have: a sentence repeated into the last fraction of a
 * second goes, a few quick words that fill the time left stay.
 */
export function heardWordCount(words: readonly TimedWord[], audioMs: number): number {
  let heard = words.length;
  let earliest = Infinity;
  for (let n = words.length - 1; n >= 0; n--) {
    earliest = Math.min(earliest, words[n]!.startMs);
    if (audioMs - earliest < (words.length - n) * SPOKEN_MIN_MS) heard = n;
  }
  return heard;
}
