import { redactSecrets, redactSecretText } from "../secrets/redact-secrets.ts";

/**
 * The JSON text a store writes for a value, with secrets masked: the one choke point of every
 * value the SQL stores keep. Throws a `TypeError` saying why when the value is not plain JSON.
 */
export function toStoredJson(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`the value is not plain JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (typeof json !== "string") return json;
  // Masking the text is one pass over it instead of a copy of the value. Should a mask ever
  // cut through a JSON escape, or masking the text fail (a pattern that cannot cope with some
  // text must not cost the case), mask the value itself instead.
  try {
    const redacted = redactSecretText(json);
    if (redacted === json) return redacted;
    JSON.parse(redacted);
    return redacted;
  } catch {
    return JSON.stringify(redactSecrets(value));
  }
}
