/**
 * G.711 (ITU-T, 1988) expansion tables: each 8-bit code word to its linear value, scaled so that
 * the 16-bit linear range maps to [-1, 1). Built from the standard's segment/quantisation rules
 * rather than transcribed, so each entry is the decision-interval midpoint the standard specifies.
 */
function muLawToLinear(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  // 0x84 is the bias (132) the encoder adds before segmenting.
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return u & 0x80 ? -magnitude | 0 : magnitude; // | 0: code 0x7f is +0, not -0
}

function aLawToLinear(code: number): number {
  // Even bits are inverted on the line (the 0x55 mask); the sign bit set means positive.
  const a = code ^ 0x55;
  const exponent = (a >> 4) & 0x07;
  const mantissa = a & 0x0f;
  const magnitude = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  return a & 0x80 ? magnitude : -magnitude;
}

function table(expand: (code: number) => number): Float32Array {
  const t = new Float32Array(256);
  for (let c = 0; c < 256; c++) t[c] = expand(c) / 32768;
  return t;
}

/** μ-law code word → linear sample in [-1, 1). */
export const MULAW_TABLE: Float32Array = table(muLawToLinear);
/** A-law code word → linear sample in [-1, 1). */
export const ALAW_TABLE: Float32Array = table(aLawToLinear);
/** The same tables as 16-bit integers, for comparing with other decoders bit for bit. */
export const muLawToInt16 = muLawToLinear;
export const aLawToInt16 = aLawToLinear;
