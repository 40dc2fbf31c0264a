import { ConfigError } from "verdict";

/** Ends the example with one clear line when no judge is configured (no key, no model). */
export function exitIfNoJudge(error: unknown): void {
  if (error instanceof ConfigError) {
    console.error(`No judge configured: ${error.message}`);
    process.exit(2);
  }
}
