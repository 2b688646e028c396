/**
 * The pretrained segmentation model in ../shared/models that tests and benches supply by URL or file
 * (never committed, never shipped): pyannote segmentation-3.0, sherpa-onnx's int8 export. No node
 * imports here, so browser tests can read it too.
 */
export const SEGMENTATION_MODEL_SHA256 = 'd582f4b4c6b48205de7e0643c57df0df5615a3c176189be3fc461e9d18827b5d';
/** Its path under ../shared/models (served at /__models/ by config/vite-plugins.ts). */
export const SEGMENTATION_MODEL_PATH = 'pyannote-segmentation-3.0/pyannote-segmentation-3.0.int8.onnx';
