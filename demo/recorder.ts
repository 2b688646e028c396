/** Microphone recording: MediaRecorder → one Blob in the recorder's own container (WebM/Opus in Chromium). */
export class Recorder {
  private recorder: MediaRecorder | null = null;
  private chunks: Blob[] = [];
  private startedAt = 0;

  get recording(): boolean {
    return this.recorder?.state === 'recording';
  }

  /** Milliseconds since start() (0 when idle). */
  get elapsedMs(): number {
    return this.recording ? performance.now() - this.startedAt : 0;
  }

  async start(): Promise<void> {
    if (this.recording) return;
    if (!navigator.mediaDevices?.getUserMedia) throw new Error('this browser cannot record (no microphone access in this context)');
    const stream = await navigator.mediaDevices.getUserMedia({
      // Raw audio: Whisper copes with room noise better than with what echo cancellation and noise suppression leave.
      audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    });
    const type = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/mp4'].find((t) => MediaRecorder.isTypeSupported(t));
    this.chunks = [];
    this.recorder = new MediaRecorder(stream, type ? { mimeType: type } : {});
    this.recorder.addEventListener('dataavailable', (e) => {
      if (e.data.size > 0) this.chunks.push(e.data);
    });
    this.recorder.start(250);
    this.startedAt = performance.now();
  }

  /** Stops recording, releases the microphone, and returns what was recorded. */
  stop(): Promise<Blob> {
    const recorder = this.recorder;
    if (!recorder) return Promise.reject(new Error('not recording'));
    return new Promise((resolve) => {
      recorder.addEventListener(
        'stop',
        () => {
          for (const track of recorder.stream.getTracks()) track.stop();
          this.recorder = null;
          resolve(new Blob(this.chunks, { type: recorder.mimeType || 'audio/webm' }));
        },
        { once: true },
      );
      recorder.stop();
    });
  }
}
