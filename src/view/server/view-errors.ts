/** A run, case, image or route that does not exist: answered 404 with this message. */
export class NotFoundError extends Error {
  override name = "NotFoundError";
}

/** A query parameter the API cannot use: answered 400 with this message, which says what it takes. */
export class BadQueryError extends Error {
  override name = "BadQueryError";
}
