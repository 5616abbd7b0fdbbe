/** What the operator CLI runs against: its output streams, its environment and, in tests, a fetch of their own. */
export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
}
