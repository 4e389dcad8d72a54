import { z } from 'zod'

// Texts up to inlineScanChars are scanned on the event loop, up to inlineBudgetChars per request;
// the rest go to the worker pool. Measured on a 2-core x86-64, Node 24, English prose with an
// e-mail and a phone number in every 220 characters (two runs, low–high):
//   inline scanContent:  64 chars 26–42 µs · 256 69–75 µs · 1 KiB 130–170 µs · 2 KiB 225–330 µs
//                        · 4 KiB 415–680 µs · 16 KiB 1.6–3.0 ms · 64 KiB 6.8 ms
//   pool.run:            round trip 90–240 µs up to 1 KiB, 320–330 µs at 2 KiB, 530–670 µs at
//                        4 KiB; of it on the event loop 10–30 µs up to 4 KiB, 16–95 µs at 8–16 KiB
// A pool round trip costs more than scanning a short chat turn inline, while every KiB scanned
// inline holds the loop ~150 µs; 1 KiB per text and 2 KiB per request keep that under ~0.35 ms.
// A whole governed request with two short messages then takes ~200 µs of loop time (audit write
// included), ~45 µs when its verdict is memoized.
const DEFAULT_INLINE_SCAN_CHARS = 1024
const DEFAULT_INLINE_BUDGET_CHARS = 2048

export const governorSchema = z.strictObject({
  /** Longest text (UTF-16 units) scanned on the event loop instead of the worker pool. */
  inlineScanChars: z.number().int().nonnegative().default(DEFAULT_INLINE_SCAN_CHARS),
  /** Most characters a request may have scanned on the event loop; further texts go to the pool. */
  inlineBudgetChars: z.number().int().nonnegative().default(DEFAULT_INLINE_BUDGET_CHARS),
  /** Verdicts remembered per process (0: none). */
  memoEntries: z.number().int().nonnegative().default(5000),
  /**
   * Let the learned prompt-injection model (npm run train:governor) flag what the phrase rules
   * leave undecided, in requests and answers. Off by default: on sources it never saw it adds about
   * a point of recall and flags a few defensive system prompts (docs/governor.md).
   */
  learnedModel: z.boolean().default(false),
  /**
   * A project's own prompt-injection classifier (an ONNX model and its Hugging Face tokenizer.json,
   * local files; paths relative to the working directory) reads, in the worker pool, the texts the
   * rules leave undecided. docs/governor.md.
   */
  classifier: z
    .strictObject({
      model: z.string().min(1),
      tokenizer: z.string().min(1),
      /** A window is flagged when its probability of the injection label passes this. */
      threshold: z.number().min(0).lt(1).default(0.5),
      /** Which of the model's outputs is the injection label (Prompt Guard 2 and most injection classifiers: 1). */
      injectionLabel: z.number().int().nonnegative().default(1),
      /** Most tokens per window, special tokens included; by default tokenizer.json's truncation length, else 512. */
      maxTokens: z.number().int().positive().optional(),
    })
    .optional(),
})
