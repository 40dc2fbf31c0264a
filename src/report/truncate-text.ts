import { redactSecretText } from "../secrets/redact-secrets.ts";

/**
 * At most `maxLength` characters (code points, so that no emoji is cut in half): longer text is
 * cut, trailing white space dropped, and `…` added. Secrets are masked first
 * (`redactSecretText`): once cut, a key's first half no longer matches its value or pattern.
 */
export function truncateText(text: string, maxLength: number): string {
  const masked = redactSecretText(text);
  const characters = Array.from(masked);
  if (characters.length <= maxLength) return masked;
  return `${characters
    .slice(0, maxLength - 1)
    .join("")
    .trimEnd()}…`;
}
