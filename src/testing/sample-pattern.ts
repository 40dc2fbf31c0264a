/** Options of {@link samplePattern}. */
export interface SamplePatternOptions {
  /** A JSON schema `pattern`: an ECMAScript regular expression, without delimiters. */
  pattern: string;
}

type Node =
  | { kind: "text"; text: string }
  | { kind: "choice"; branches: Node[][] }
  | { kind: "repeat"; node: Node; min: number; max: number };

const PRINTABLE = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.@:/#+"];
const ESCAPES: Record<string, string> = {
  d: "1",
  D: "a",
  w: "a",
  W: "-",
  s: " ",
  S: "a",
  n: "\n",
  t: "\t",
  r: "\r",
  f: "\f",
  v: "\v",
  b: "",
  B: "",
};

/**
 * Builds one string that the pattern matches, for the common subset of regular expressions
 * (literals, escapes, classes, groups, alternation, quantifiers), or `null` when the pattern
 * uses more (lookaround, backreferences) or the string does not match after all.
 * @example
 * samplePattern({ pattern: "^[A-Z]{3}-\\d{2}$" }); // "AAA-11"
 */
export function samplePattern(options: SamplePatternOptions): string | null {
  try {
    const regex = compilePattern(options.pattern);
    if (regex === null) return null;
    const cursor = { pattern: options.pattern, index: 0 };
    const sequence = parseAlternation(cursor);
    if (cursor.index < cursor.pattern.length) return null;
    const text = generate(sequence);
    return regex.test(text) ? text : null;
  } catch {
    return null;
  }
}

interface Cursor {
  pattern: string;
  index: number;
}

function parseAlternation(cursor: Cursor): Node[] {
  const branches: Node[][] = [parseSequence(cursor)];
  while (cursor.pattern[cursor.index] === "|") {
    cursor.index++;
    branches.push(parseSequence(cursor));
  }
  return branches.length === 1 ? (branches[0] ?? []) : [{ kind: "choice", branches }];
}

function parseSequence(cursor: Cursor): Node[] {
  const nodes: Node[] = [];
  for (;;) {
    const character = cursor.pattern[cursor.index];
    if (character === undefined || character === "|" || character === ")") return nodes;
    const atom = parseAtom(cursor);
    nodes.push(parseQuantifier({ cursor, node: atom }));
  }
}

function parseAtom(cursor: Cursor): Node {
  const character = cursor.pattern[cursor.index++] ?? "";
  switch (character) {
    case "^":
    case "$":
      return { kind: "text", text: "" };
    case ".":
      return { kind: "text", text: "a" };
    case "\\":
      return { kind: "text", text: parseEscape(cursor) };
    case "[":
      return { kind: "text", text: parseClass(cursor) };
    case "(": {
      if (cursor.pattern.startsWith("?:", cursor.index)) {
        cursor.index += 2;
      } else if (/^\?<[A-Za-z_$][\w$]*>/.test(cursor.pattern.slice(cursor.index))) {
        cursor.index = cursor.pattern.indexOf(">", cursor.index) + 1;
      } else if (cursor.pattern[cursor.index] === "?") {
        throw new Error("lookaround is not supported");
      }
      const branches = parseAlternation(cursor);
      if (cursor.pattern[cursor.index++] !== ")") throw new Error("unclosed group");
      return { kind: "choice", branches: [branches] };
    }
    default:
      return { kind: "text", text: character };
  }
}

function parseEscape(cursor: Cursor): string {
  const character = cursor.pattern[cursor.index++] ?? "";
  if (/[1-9k]/.test(character)) throw new Error("backreferences are not supported");
  if (character === "u" || character === "x") {
    const braced = cursor.pattern[cursor.index] === "{";
    const match = braced
      ? /^\{([0-9a-fA-F]+)\}/.exec(cursor.pattern.slice(cursor.index))
      : new RegExp(`^[0-9a-fA-F]{${character === "u" ? 4 : 2}}`).exec(
          cursor.pattern.slice(cursor.index),
        );
    if (match === null) throw new Error("bad escape");
    cursor.index += match[0].length;
    return String.fromCodePoint(Number.parseInt(match[1] ?? match[0], 16));
  }
  if (character === "p" || character === "P") throw new Error("property escapes are not supported");
  return ESCAPES[character] ?? character;
}

/** Reads a character class and returns the first printable character it accepts. */
function parseClass(cursor: Cursor): string {
  const start = cursor.index - 1;
  let negated = false;
  if (cursor.pattern[cursor.index] === "^") {
    negated = true;
    cursor.index++;
  }
  let first = true;
  while (cursor.index < cursor.pattern.length) {
    const character = cursor.pattern[cursor.index];
    if (character === "]" && !first) break;
    cursor.index += character === "\\" ? 2 : 1;
    first = false;
  }
  if (cursor.pattern[cursor.index] !== "]") throw new Error("unclosed class");
  cursor.index++;
  const source = cursor.pattern.slice(start, cursor.index);
  const regex = compilePattern(`^${source}$`);
  if (regex === null) throw new Error("bad class");
  const found = PRINTABLE.find((character) => regex.test(character));
  if (found === undefined) throw new Error(negated ? "class excludes every sample" : "empty class");
  return found;
}

function parseQuantifier(options: { cursor: Cursor; node: Node }): Node {
  const { cursor, node } = options;
  const rest = cursor.pattern.slice(cursor.index);
  const match = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(rest);
  if (match === null) return node;
  cursor.index += match[0].length;
  const [, symbol, low, comma, high] = match;
  if (symbol === "*") return { kind: "repeat", node, min: 0, max: Number.POSITIVE_INFINITY };
  if (symbol === "+") return { kind: "repeat", node, min: 1, max: Number.POSITIVE_INFINITY };
  if (symbol === "?") return { kind: "repeat", node, min: 0, max: 1 };
  const min = Number(low);
  const max = comma === undefined ? min : high === "" ? Number.POSITIVE_INFINITY : Number(high);
  return { kind: "repeat", node, min, max };
}

function generate(nodes: Node[]): string {
  let text = "";
  for (const node of nodes) {
    if (node.kind === "text") text += node.text;
    else if (node.kind === "choice") text += generate(node.branches[0] ?? []);
    else {
      // One occurrence of optional parts reads more like real data than none.
      const count = Math.min(Math.max(node.min, Math.min(1, node.max)), 1000);
      for (let index = 0; index < count; index++) text += generate([node.node]);
    }
  }
  return text;
}

/** Compiles a JSON schema pattern: most are valid with the `u` flag, some only without it. */
export function compilePattern(pattern: string): RegExp | null {
  for (const flags of ["u", ""]) {
    try {
      return new RegExp(pattern, flags);
    } catch {}
  }
  return null;
}
