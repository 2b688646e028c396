/** Generates the audio fixtures (see make-audio-fixtures.mjs); returns the manifest's path. */
export function makeAudioFixtures(): string;
export default function setup(): void;
