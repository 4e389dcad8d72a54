// Entry point of the worker pool: every named export is a task. A task is a pure function of
// its input: no store, no network.
export { countTexts } from './count-tokens.ts'
export { hashCacheKey } from './hash-cache-key.ts'
export { scanContent, scanContentBatch } from './scan-content.ts'
export { hashPassword, verifyPassword } from './password.ts'
