// "<" and ">" as JSON escapes: the same characters to anything that reads the JSON.
const ANGLE_BRACKETS = /[<>]/g;
const ESCAPES: Record<string, string> = { "<": "\\u003c", ">": "\\u003e" };

/**
 * A value as JSON for a prompt, with `<` and `>` written as `\u003c` and `\u003e` (which any
 * JSON reader, and any judge, reads as the same characters). Prompts quote data between
 * `<tag>` markers; without an angle bracket, quoted data can never write a marker of its own,
 * so it cannot close its block early and pass the rest off as instructions.
 */
export function promptJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    ANGLE_BRACKETS,
    (bracket) => ESCAPES[bracket] as string,
  );
}
