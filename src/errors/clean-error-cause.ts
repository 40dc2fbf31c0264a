import { redactSecretText } from "../secrets/redact-secrets.ts";

// Causes this module made (or verdict errors, which are clean by construction): kept as they are.
const cleanCauses = new WeakSet<object>();

const MAX_DEPTH = 4;

/**
 * What a verdict error keeps of the error that caused it: its name, message, HTTP status and
 * code, and its stack, with secrets masked — never the original object, whose fields
 * (`requestBodyValues`, `responseHeaders`, `responseBody`, `data`, a provider client's
 * configuration) can hold keys that `util.inspect` or a logger would print. A cause's own
 * cause is cleaned the same way; a string is masked; other primitives are kept.
 * @example
 * new Error(message, { cause: cleanErrorCause(caught) });
 */
export function cleanErrorCause(cause: unknown, depth = 0): unknown {
  if (typeof cause === "string") return redactSecretText(cause);
  if (typeof cause !== "object" || cause === null) {
    return typeof cause === "function" || typeof cause === "symbol" ? String(cause) : cause;
  }
  if (cleanCauses.has(cause)) return cause;
  const source = cause as Record<string, unknown>;
  const name = textOf(readField(source, "name")) ?? "Error";
  const message = textOf(readField(source, "message")) ?? "";
  const cleaned = new Error(redactSecretText(message));
  Object.defineProperty(cleaned, "name", {
    value: redactSecretText(name),
    configurable: true,
    writable: true,
  });
  const stack = readField(source, "stack");
  Object.defineProperty(cleaned, "stack", {
    value:
      typeof stack === "string"
        ? redactSecretText(stack)
        : `${cleaned.name}${cleaned.message === "" ? "" : `: ${cleaned.message}`}`,
    configurable: true,
    writable: true,
  });
  const status = readField(source, "statusCode") ?? readField(source, "status");
  if (typeof status === "number") Object.assign(cleaned, { status });
  const code = readField(source, "code");
  if (typeof code === "number") Object.assign(cleaned, { code });
  if (typeof code === "string") Object.assign(cleaned, { code: redactSecretText(code) });
  const inner = readField(source, "cause");
  if (inner !== undefined && depth < MAX_DEPTH) {
    Object.defineProperty(cleaned, "cause", {
      value: cleanErrorCause(inner, depth + 1),
      configurable: true,
      writable: true,
    });
  }
  cleanCauses.add(cleaned);
  return cleaned;
}

/** Marks a value as clean (a verdict error): {@link cleanErrorCause} keeps it as it is. */
export function markCleanCause(value: object): void {
  cleanCauses.add(value);
}

/** A field of an object that may be a getter that throws or a proxy: read it carefully. */
function readField(source: Record<string, unknown>, key: string): unknown {
  try {
    return source[key];
  } catch {
    return undefined;
  }
}

function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}
