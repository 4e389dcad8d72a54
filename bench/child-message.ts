// The IPC messages between the benchmark and its child processes. A child announces once that it
// is ready (with the address and whatever else it serves) or why it could not start, and answers
// the parent's questions about the CPU time it has used, so the report can show each server's
// cost per request whatever else the machine is running.

export type ChildMessage<I> =
  | { readonly type: 'ready'; readonly info: I }
  | { readonly type: 'failed'; readonly message: string }
  /** User plus system time of the whole process, all threads, since it started (of the servers it runs, for one that runs others). */
  | { readonly type: 'cpu-usage'; readonly micros: number }

export type ParentMessage = { readonly type: 'cpu-usage' }
