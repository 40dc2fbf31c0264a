/**
 * Where the `{…}` starting at some point of a text ends (and how deeply its brackets nest),
 * or why it never does.
 */
export type ObjectExtent =
  | { ok: true; end: number; depth: number }
  | { ok: false; problem: string };

const CLOSERS: Record<string, string> = { "{": "}", "[": "]" };

/** The problem of an answer that ends inside `what` (a string, an object, …). */
export function cutOff(what: string): string {
  return `the answer was cut off: it ends inside ${what} that was never closed, so it is incomplete (if the answer is long, keep it shorter)`;
}

/**
 * Where a string of JSON that is itself written inside a JSON string (`\"opinions\"`, as in
 * `"{\"opinions\": []}"`) ends: just after its closing `\"`. `start` is just after the
 * opening `\"`. Reads the characters the escapes stand for, so `\\\"` (an escaped quote in
 * the inner string) does not end it. -1 when it never ends.
 */
function escapedStringEnd(text: string, start: number): number {
  let cursor = start;
  let escaped = false;
  while (cursor < text.length) {
    const pair = text[cursor] === "\\" && (text[cursor + 1] === "\\" || text[cursor + 1] === '"');
    const character = pair ? (text[cursor + 1] as string) : (text[cursor] as string);
    cursor += pair ? 2 : 1;
    if (escaped) escaped = false;
    else if (character === "\\") escaped = true;
    else if (character === '"') return cursor;
  }
  return -1;
}

/**
 * Scans from the `{` at `start` to the bracket that closes it, skipping strings (double or
 * single quoted, with escapes, or escaped themselves: `\"…\"`) and comments. Never recursive,
 * so deep nesting cannot overflow the stack; linear in the length scanned.
 */
export function findObjectEnd(text: string, start: number): ObjectExtent {
  const open: string[] = [];
  let depth = 0;
  let index = start;
  while (index < text.length) {
    const character = text[index] as string;
    if (character === '"' || character === "'") {
      let cursor = index + 1;
      while (cursor < text.length && text[cursor] !== character) {
        cursor += text[cursor] === "\\" ? 2 : 1;
      }
      if (cursor >= text.length) return { ok: false, problem: cutOff("a string") };
      index = cursor + 1;
      continue;
    }
    if (character === "\\" && text[index + 1] === '"') {
      const end = escapedStringEnd(text, index + 2);
      if (end === -1) return { ok: false, problem: cutOff("a string") };
      index = end;
      continue;
    }
    if (character === "/" && text[index + 1] === "/") {
      const newline = text.indexOf("\n", index);
      index = newline === -1 ? text.length : newline + 1;
      continue;
    }
    if (character === "/" && text[index + 1] === "*") {
      const close = text.indexOf("*/", index + 2);
      if (close === -1) return { ok: false, problem: cutOff("a comment") };
      index = close + 2;
      continue;
    }
    if (character === "{" || character === "[") {
      open.push(CLOSERS[character] as string);
      depth = Math.max(depth, open.length);
    } else if (character === "}" || character === "]") {
      const expected = open.pop();
      if (expected !== character) {
        return {
          ok: false,
          problem: `the answer's brackets do not match: "${character}" at character ${index + 1} does not close the "${expected === "}" ? "{" : "["}" opened before it`,
        };
      }
      if (open.length === 0) return { ok: true, end: index, depth };
    }
    index++;
  }
  const last = open.at(-1) === "]" ? "an array" : "an object";
  return { ok: false, problem: cutOff(last) };
}
