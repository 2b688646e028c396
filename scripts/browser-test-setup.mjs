// Vitest globalSetup for the browser tests (runs in node before any page opens): generates the audio
// fixtures with ffmpeg/sox and the flite biasing set into test/.fixtures/, both cached by version.
import { generateBiasSet } from '../bench/bias-set/generate.mjs';
import { makeAudioFixtures } from './make-audio-fixtures.mjs';

export default function setup() {
  makeAudioFixtures();
  generateBiasSet(['slt']);
}
