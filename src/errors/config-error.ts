import { EvalError, type EvalErrorOptions } from "./eval-error.ts";

/** The configuration is incomplete or wrong: a missing key, an unknown model, a bad option. */
export class ConfigError extends EvalError {
  constructor(message: string, options: EvalErrorOptions = {}) {
    super("CONFIG", message, options);
  }
}
