import { compilePattern, samplePattern } from "./sample-pattern.ts";

const WORDS = ["clear", "relevant", "accurate", "partial", "concise", "vague", "grounded", "off"];

const FORMAT_VALUES: Record<string, string> = {
  email: "judge@example.com",
  "idn-email": "judge@example.com",
  "date-time": "2024-05-01T12:00:00Z",
  date: "2024-05-01",
  time: "12:00:00Z",
  duration: "P1D",
  uri: "https://example.com/",
  url: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  uuid: "00000000-0000-4000-8000-000000000000",
  byte: "ZmFrZQ==",
  base64: "ZmFrZQ==",
  regex: ".*",
};

/** Options of {@link fillJsonString}. */
export interface FillJsonStringOptions {
  /** A string schema (`$ref`, `allOf` and unions already resolved). */
  node: Record<string, unknown>;
  /** JSON path of the value, e.g. `$.reasons[1]`: names the text and numbers list items. */
  path: string;
  /** Deterministic choice among `count` options, from the seed and the path. */
  pick: (count: number) => number;
}

/**
 * Builds a string for a schema: a known-valid value for `format`, otherwise short readable
 * text made from the path ("clear reasons 2"), within `minLength`/`maxLength`, and one that
 * matches `pattern` when it can be found.
 */
export function fillJsonString(options: FillJsonStringOptions): string {
  const { node } = options;
  const minLength = typeof node.minLength === "number" ? node.minLength : 0;
  const maxLength = typeof node.maxLength === "number" ? node.maxLength : Number.POSITIVE_INFINITY;
  const formatValue = typeof node.format === "string" ? FORMAT_VALUES[node.format] : undefined;
  const word = WORDS[options.pick(WORDS.length)] ?? "fake";
  const key = options.path.match(/[A-Za-z_][\w-]*/g)?.at(-1) ?? "value";
  const index = options.path.match(/\[(\d+)\][^[\].]*$/)?.[1];
  const base = key === "$" ? word : `${word} ${key}`;
  let text = formatValue ?? (index === undefined ? base : `${base} ${Number(index) + 1}`);
  if (formatValue === undefined) {
    while (text.length < minLength) text += ` ${text}`;
    text = text.slice(0, Math.max(minLength, Math.min(text.length, maxLength)));
  }
  if (typeof node.pattern !== "string") return text;
  return matchPattern({ pattern: node.pattern, preferred: text, minLength, maxLength });
}

const PATTERN_CANDIDATES = ["a", "A", "0", "abc", "ABC", "a1", "a-b", "a_b", "1.0.0", "#000000"];

/** Best effort: not every regex can be sampled, so try plausible strings in turn. */
function matchPattern(options: {
  pattern: string;
  preferred: string;
  minLength: number;
  maxLength: number;
}): string {
  const regex = compilePattern(options.pattern);
  if (regex === null) return options.preferred;
  const sampled = samplePattern({ pattern: options.pattern });
  const candidates = [
    options.preferred,
    ...(sampled === null ? [] : [sampled]),
    ...Object.values(FORMAT_VALUES),
    ...PATTERN_CANDIDATES,
  ];
  const fits = (text: string) =>
    text.length >= options.minLength && text.length <= options.maxLength && regex.test(text);
  return candidates.find(fits) ?? options.preferred;
}
