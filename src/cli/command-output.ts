/** Where a command prints: `process.stdout`, `process.stderr`, or a collector in tests. */
export interface CommandOutput {
  write(text: string): unknown;
}
