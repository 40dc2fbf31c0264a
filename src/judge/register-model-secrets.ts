import { isSecretVariable, refreshEnvironmentSecrets } from "../secrets/redact-secrets.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";

// Keys verdict itself passes to keyless local servers: not secrets, and masking them would
// mask ordinary words.
const PLACEHOLDER_KEYS = new Set(["ollama", "not-needed"]);

/**
 * Registers with the redactor the credentials an AI SDK language model sends — the key in its
 * `Authorization`, `x-api-key`, `api-key` or `x-goog-api-key` header, and any other header
 * whose name says it is secret — plus `extra` values, so a key passed in code
 * (`createOpenAI({ apiKey })`) is masked wherever a provider echoes it, like a key from the
 * environment. A model whose headers cannot be read (a provider that reads its key lazily
 * and has none yet) registers only `extra`.
 */
export function registerModelSecrets(model: object, extra: readonly string[] = []): void {
  registerSecretValues(extra);
  // The judge may read its key from process.env: make sure the next redaction sees it.
  refreshEnvironmentSecrets();
  let headers: unknown;
  try {
    // AI SDK providers keep their request headers (with the key) in `config.headers`.
    const config = (model as { config?: { headers?: unknown } }).config;
    headers = typeof config?.headers === "function" ? config.headers() : config?.headers;
  } catch {
    return;
  }
  if (headers instanceof Promise) {
    headers.then(registerHeaderSecrets, () => {});
  } else {
    registerHeaderSecrets(headers);
  }
}

function registerHeaderSecrets(headers: unknown): void {
  if (typeof headers !== "object" || headers === null) return;
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") continue;
    const lower = name.toLowerCase();
    if (lower === "authorization" || lower === "proxy-authorization") {
      values.push(value.replace(/^\s*(?:Bearer|Basic|Token)\s+/i, ""));
    } else if (isSecretVariable(name) || lower.includes("auth")) {
      values.push(value);
    }
  }
  registerSecretValues(values.filter((value) => !PLACEHOLDER_KEYS.has(value.trim())));
}
