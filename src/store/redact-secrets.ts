/** What a redacted secret is replaced with. */
export const REDACTED = "***";

// Words (after splitting camelCase, snake_case and kebab-case) that mark a key as secret.
// "token" is matched as a whole word so that counts such as `maxTokens` or `inputTokens`
// survive, while `accessToken` or `GITHUB_TOKEN` do not.
const SECRET_WORDS = new Set([
  "apikey",
  "secret",
  "secrets",
  "token",
  "password",
  "passwd",
  "authorization",
  "credential",
  "credentials",
]);
const SECRET_WORD_PAIRS = new Set(["api key", "private key", "access key"]);

// Values that look like credentials wherever they appear, whatever their key is called.
const SECRET_VALUE_PATTERNS: readonly RegExp[] = [
  /\bBearer\s+[\w.~+/=-]{8,}/gi,
  /\bBasic\s+[A-Za-z0-9+/=]{8,}/g,
  /\bsk-[\w-]{16,}/g,
  /\bAIza[\w-]{35}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_\w{30,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
];

function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** Whether a property name says its value is a secret (`apiKey`, `OPENAI_API_KEY`, `x-auth-token`, …). */
export function isSecretKey(key: string): boolean {
  const words = wordsOf(key);
  return words.some(
    (word, position) =>
      SECRET_WORDS.has(word) || SECRET_WORD_PAIRS.has(`${word} ${words[position + 1] ?? ""}`),
  );
}

function redactString(text: string): string {
  let redacted = text;
  for (const pattern of SECRET_VALUE_PATTERNS) redacted = redacted.replace(pattern, REDACTED);
  return redacted;
}

function redactValue(value: unknown, insideSecret: boolean, ancestors: Set<object>): unknown {
  if (typeof value === "string") return insideSecret ? REDACTED : redactString(value);
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof Date) return new Date(value.getTime());
  if (ancestors.has(value)) return "[Circular]";
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item) => redactValue(item, insideSecret, ancestors));
    }
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] = redactValue(item, insideSecret || isSecretKey(key), ancestors);
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

/**
 * Deep-copies a value for storage, replacing secrets with `"***"`: every string under a key
 * that names a secret (`apiKey`, `api_key`, `OPENAI_API_KEY`, `secret`, `token`, `password`,
 * `authorization`, …, in any case or separator style), and, anywhere, parts of strings that
 * look like credentials (`sk-…`, `Bearer …`, Google, AWS, GitHub and Slack keys).
 *
 * Numbers and booleans are kept even under such keys (`maxTokens: 1000` is not a secret).
 * Objects are copied as JSON sees them (own enumerable properties); a cycle becomes
 * `"[Circular]"`. The input is never modified.
 * @example
 * store.startRun({ ...run, config: redactSecrets(config) });
 * redactSecrets({ model: "gpt-4.1", apiKey: "sk-abc…" }); // { model: "gpt-4.1", apiKey: "***" }
 */
export function redactSecrets<Value>(value: Value): Value {
  return redactValue(value, false, new Set()) as Value;
}
