import { EvalError, type EvalErrorOptions } from "./eval-error.ts";

/** The result store or judge cache could not be read or written. */
export class StoreError extends EvalError {
  constructor(message: string, options: EvalErrorOptions = {}) {
    super("STORE", message, options);
  }
}
