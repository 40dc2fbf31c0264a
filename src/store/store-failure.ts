import { StoreError } from "../errors/store-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";

/**
 * The failure of a store call, worded alike by every store: `Could not <action> in <store>:
 * <reason>.` (`Could not open <store>: …` for the open itself), secrets masked.
 * @example
 * storeFailure({ store: "the verdict store .verdict/verdict.db", action: "list runs", reason: "the store is closed" });
 */
export function storeFailure(options: {
  /** How the message names the store, e.g. `the verdict store postgres://evals@db/evals`. */
  store: string;
  action: string;
  reason: string;
  cause?: unknown;
}): StoreError {
  const { store, action, reason, cause } = options;
  const what = action === "open" ? `open ${store}` : `${action} in ${store}`;
  return new StoreError(
    redactSecretText(`Could not ${what}: ${reason}.`),
    cause === undefined ? {} : { cause },
  );
}
