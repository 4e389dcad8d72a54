// Weights stored as 16-bit integers (little-endian) times one scale: 512 KB for 2^18 buckets.
// The dequantized weights are what the scanner computes with, so thresholds are set on them.

export interface Quantized {
  readonly bytes: Buffer
  readonly scale: number
  readonly dequantized: Float64Array
}

export function quantize(weights: Float64Array): Quantized {
  let largest = 0
  for (let i = 0; i < weights.length; i++) largest = Math.max(largest, Math.abs(weights[i]!))
  const scale = largest === 0 ? 1 : largest / 32767
  const bytes = Buffer.alloc(weights.length * 2)
  const dequantized = new Float64Array(weights.length)
  for (let i = 0; i < weights.length; i++) {
    const level = Math.round(weights[i]! / scale)
    bytes.writeInt16LE(level, i * 2)
    dequantized[i] = Math.fround(level * scale)
  }
  return { bytes, scale, dequantized }
}
