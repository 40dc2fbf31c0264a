import { MIN_SECRET_VALUE_LENGTH, registeredSecretValues } from "./secret-registry.ts";

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
  // libpq's password variable and parameter (PGPASSWORD, ?sslpassword=…).
  "pgpassword",
  "sslpassword",
]);
const SECRET_WORD_PAIRS = new Set(["api key", "private key", "access key"]);

// Query parameters that carry a credential although their name is no secret word:
// Google's `?key=AIza…`, Azure's SAS `sig=`.
const SECRET_QUERY_PARAMETERS = new Set(["key", "sig"]);

// Values that look like credentials wherever they appear, whatever their key is called.
// `*` is allowed in keys because providers echo keys half-masked (`sk-proj-****abcd`); a key
// never ends in `.`, so the full stop after one is kept. Each starts with a literal, which
// lets the regex engine skip through text fast; one alternation of them all is 8× slower.
const SECRET_VALUE_PATTERNS: readonly RegExp[] = [
  /\bBearer\s+[\w.~+/=*-]{7,}[\w~+/=*-]/gi,
  /\bBasic\s+[A-Za-z0-9+/=]{8,}/g,
  /\b(?:sk|pk|rk)-[\w*.-]{5,}[\w*-]/g,
  /\bAIza[\w*-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_\w{30,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
];
// Azure OpenAI keys are 32 hex digits. This pattern has no literal to skip to, so it only
// runs on text that holds a run of 32 hex digits (see hasHexRun).
const HEX_KEY = /\b[a-f0-9]{32}\b/gi;
const HEX_KEY_LENGTH = 32;

function hasHexRun(text: string): boolean {
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const hex =
      (code >= 48 && code <= 57) || (code >= 97 && code <= 102) || (code >= 65 && code <= 70);
    run = hex ? run + 1 : 0;
    if (run === HEX_KEY_LENGTH) return true;
  }
  return false;
}

// `?api-key=…`, `&access_token=…`: the value of a query parameter whose name is secret.
const QUERY_PARAMETER = /([?&;])([\w.-]+)=([^&#\s"'<>]+)/g;
// `"apiKey": "` in JSON text: where a field's string value starts. The value itself is read
// by a scan (maskQuotedSecretFields), not by the regex: a repeated group such as
// `(?:[^"\\]|\\.)+` recurses once per character in V8 and overflows the stack on a value of
// a few million characters. `x-api-key: …` in a header dump.
const QUOTED_FIELD_START = /"([\w.-]+)"(\s*:\s*)"/g;
const API_KEY_HEADER = /\b((?:x-)?(?:goog-)?api-key)(\s*:\s*)([^\s,;"']{8,})/gi;
// The password of a URL's user information: `postgres://team:hunter2@db/evals`. The user
// name stays (it helps tell which account was used); the password never does.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/?#"'<>]*):([^\s@/?#"'<>]+)@/gi;

/**
 * The index of the quote that closes a string whose first character is at `start` (a
 * backslash escapes the character after it), or -1 when the text ends first.
 */
function closingQuoteOf(text: string, start: number): number {
  let index = start;
  while (index < text.length) {
    const quote = text.indexOf('"', index);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (quote - backslashes - 1 >= start && text.charCodeAt(quote - backslashes - 1) === 92) {
      backslashes++;
    }
    if (backslashes % 2 === 0) return quote;
    index = quote + 1;
  }
  return -1;
}

/**
 * Masks the non-empty string value of every `"name": "…"` field whose name is secret, in
 * one pass: a value is skipped whole (secret or not), so a field quoted inside another
 * field's value is read as that value's text, as JSON reads it.
 */
function maskQuotedSecretFields(text: string): string {
  const start = QUOTED_FIELD_START;
  start.lastIndex = 0;
  let masked = "";
  let copiedUpTo = 0;
  for (let match = start.exec(text); match !== null; match = start.exec(text)) {
    const valueStart = match.index + match[0].length;
    const closing = closingQuoteOf(text, valueStart);
    // No closing quote after this value means none after any later one either (a later
    // field starts inside this value, where every quote is escaped).
    if (closing === -1) break;
    if (closing === valueStart) {
      // An empty value: it may be the start of the next field, as the regex read it.
      start.lastIndex = match.index + 1;
      continue;
    }
    const name = match[1] ?? "";
    if (isSecretKeyCached(name)) {
      masked += `${text.slice(copiedUpTo, match.index)}"${name}"${match[2] ?? ""}"${REDACTED}"`;
      copiedUpTo = closing + 1;
    }
    start.lastIndex = closing + 1;
  }
  return copiedUpTo === 0 ? text : masked + text.slice(copiedUpTo);
}

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

/**
 * Whether an environment variable holds a secret: its name is a secret key
 * (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, …) or ends in `KEY` (`AZURE_KEY`).
 */
export function isSecretVariable(name: string): boolean {
  return isSecretKey(name) || wordsOf(name).at(-1) === "key";
}

// Whether each variable name seen so far is secret: the environment is read on every
// redaction (it may change), but its names are classified once.
const secretVariableNames = new Map<string, boolean>();

function isSecretVariableCached(name: string): boolean {
  return memoized(secretVariableNames, name, isSecretVariable);
}

// The same for field names met in text (`"reason": …` in every stored result).
const secretFieldNames = new Map<string, boolean>();

function isSecretKeyCached(name: string): boolean {
  return memoized(secretFieldNames, name, isSecretKey);
}

function memoized(cache: Map<string, boolean>, name: string, test: (name: string) => boolean) {
  let secret = cache.get(name);
  if (secret === undefined) {
    if (cache.size > 10_000) cache.clear();
    secret = test(name);
    cache.set(name, secret);
  }
  return secret;
}

// Listing `process.env` costs tens of µs (each name crosses into C++), too much for every
// stored result: its secret names are listed at most once a second (and at once after
// `refreshEnvironmentSecrets`), while their values are read on every call, so a changed
// value is never missed. Any other env object is listed on every call (that is cheap).
const ENV_NAMES_TTL_MS = 1000;
let processEnvNames: { names: string[]; listedAt: number } | null = null;

/**
 * Makes the next redaction list `process.env` again, so a secret variable added a moment ago
 * is masked at once. Called when a run starts and when a judge or `.env` file adds secrets.
 */
export function refreshEnvironmentSecrets(): void {
  processEnvNames = null;
}

function secretNamesOf(env: NodeJS.ProcessEnv): string[] {
  if (env !== process.env) return Object.keys(env).filter(isSecretVariableCached);
  const now = Date.now();
  if (
    processEnvNames === null ||
    now - processEnvNames.listedAt > ENV_NAMES_TTL_MS ||
    now < processEnvNames.listedAt
  ) {
    processEnvNames = { names: Object.keys(env).filter(isSecretVariableCached), listedAt: now };
  }
  return processEnvNames.names;
}

/** The values of the secret variables in `env`. */
function secretValuesOf(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const name of secretNamesOf(env)) {
    const trimmed = env[name]?.trim();
    if (trimmed && trimmed.length >= MIN_SECRET_VALUE_LENGTH) values.push(trimmed);
  }
  return values;
}

/**
 * How a value may appear in text verdict writes besides verbatim: escaped in JSON, HTML/XML
 * or a URL. Each spelling is masked.
 */
function spellingsOf(value: string): string[] {
  const spellings = [value];
  const json = JSON.stringify(value).slice(1, -1);
  const markup = value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
  for (const spelling of [json, markup, encodeURIComponent(value)]) {
    if (!spellings.includes(spelling)) spellings.push(spelling);
  }
  return spellings;
}

// The one matcher of every known secret value, rebuilt only when the values change, and the
// masking of text with it.
interface KnownValues {
  key: string;
  matcher: RegExp | null;
  mask: (text: string) => string;
}
const maskWith = (matcher: RegExp | null) => (text: string) => redactString(text, matcher);
let knownValues: KnownValues = { key: "", matcher: null, mask: maskWith(null) };

/** One regular expression that matches every known secret value, or `null` when there is none. */
function knownValueMatcher(env: NodeJS.ProcessEnv): RegExp | null {
  return currentKnownValues(env).matcher;
}

function currentKnownValues(env: NodeJS.ProcessEnv): KnownValues {
  const fromEnv = secretValuesOf(env);
  const registered = registeredSecretValues();
  const key = `${registered.version}\u0000${fromEnv.join("\u0000")}`;
  if (key === knownValues.key) return knownValues;
  const spellings = new Set<string>();
  for (const value of [...fromEnv, ...registered.values]) {
    for (const spelling of spellingsOf(value)) spellings.add(spelling);
  }
  // Longest first, so a secret that contains a shorter one is masked whole.
  const alternatives = [...spellings]
    .sort((left, right) => right.length - left.length)
    .map((spelling) => spelling.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const matcher = alternatives.length === 0 ? null : new RegExp(alternatives.join("|"), "g");
  knownValues = { key, matcher, mask: maskWith(matcher) };
  return knownValues;
}

function redactString(text: string, knownValue: RegExp | null): string {
  // Known values first: a pattern could otherwise mask part of one and leave the rest.
  let redacted = knownValue === null ? text : text.replace(knownValue, REDACTED);
  for (const pattern of SECRET_VALUE_PATTERNS) redacted = redacted.replace(pattern, REDACTED);
  if (hasHexRun(redacted)) redacted = redacted.replace(HEX_KEY, REDACTED);
  if (redacted.includes("=")) {
    redacted = redacted.replace(QUERY_PARAMETER, (match, separator: string, name: string) =>
      isSecretKeyCached(name) || SECRET_QUERY_PARAMETERS.has(name.toLowerCase())
        ? `${separator}${name}=${REDACTED}`
        : match,
    );
  }
  if (redacted.includes('"')) redacted = maskQuotedSecretFields(redacted);
  if (redacted.includes("://")) {
    redacted = redacted.replace(URL_PASSWORD, (match, start: string, password: string) =>
      password === REDACTED ? match : `${start}:${REDACTED}@`,
    );
  }
  return redacted.replace(
    API_KEY_HEADER,
    (_match, name: string, colon: string) => `${name}${colon}${REDACTED}`,
  );
}

/** Options of {@link redactSecretText} and {@link redactSecrets}. */
export interface RedactSecretsOptions {
  /**
   * The environment whose secret values are masked wherever they appear: every variable whose
   * name is secret (`…_API_KEY`, `…_TOKEN`, `…_SECRET`, `…_PASSWORD`, `…KEY`) and whose value
   * has at least 8 characters.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * Masks secrets in text that leaves the process (an error message, a log line, a report):
 * every known secret value, whatever its format — the values of the secret variables of
 * `env` and the values registered with `registerSecretValues` (keys passed to a judge in
 * code, keys read from `.env` files), verbatim or escaped for JSON, HTML or a URL — and
 * anything that
 * looks like a credential — `sk-…`, `sk-ant-…`, `AIza…`, AWS, GitHub and Slack keys,
 * 32-hex-digit Azure keys, `Bearer`/`Basic` credentials, `?api-key=…`-style query
 * parameters, `"apiKey": "…"` fields and `x-api-key:` headers. Each becomes `"***"`.
 * @example
 * process.stderr.write(redactSecretText(error.message, { env }));
 */
export function redactSecretText(text: string, options: RedactSecretsOptions = {}): string {
  return redactString(text, knownValueMatcher(options.env ?? process.env));
}

/**
 * {@link redactSecretText} as it masks now, as a function: the same function for as long as
 * what it masks (the secret values of `env`, the registered ones) stays the same, so that a
 * caller may keep what it masked and reuse it while it is given that same function.
 */
export function currentSecretMasker(options: RedactSecretsOptions = {}): (text: string) => string {
  return currentKnownValues(options.env ?? process.env).mask;
}

function redactValue(
  value: unknown,
  insideSecret: boolean,
  ancestors: Set<object>,
  knownValue: RegExp | null,
): unknown {
  if (typeof value === "string") {
    return insideSecret ? REDACTED : redactString(value, knownValue);
  }
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof Date) return new Date(value.getTime());
  if (ancestors.has(value)) return "[Circular]";
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item) => redactValue(item, insideSecret, ancestors, knownValue));
    }
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] = redactValue(item, insideSecret || isSecretKeyCached(key), ancestors, knownValue);
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

/**
 * Deep-copies a value for storage, replacing secrets with `"***"`: every string under a key
 * that names a secret (`apiKey`, `api_key`, `OPENAI_API_KEY`, `secret`, `token`, `password`,
 * `authorization`, …, in any case or separator style), and, in every other string, what
 * {@link redactSecretText} masks (the values of `env`'s secrets, `sk-…`, `Bearer …`, …).
 *
 * Numbers and booleans are kept even under such keys (`maxTokens: 1000` is not a secret).
 * Objects are copied as JSON sees them (own enumerable properties); a cycle becomes
 * `"[Circular]"`. The input is never modified.
 * @example
 * await store.runs.startRun({ ...run, config: redactSecrets(config) });
 * redactSecrets({ model: "gpt-4.1", apiKey: "sk-abc…" }); // { model: "gpt-4.1", apiKey: "***" }
 */
export function redactSecrets<Value>(value: Value, options: RedactSecretsOptions = {}): Value {
  return redactValue(
    value,
    false,
    new Set(),
    knownValueMatcher(options.env ?? process.env),
  ) as Value;
}
