/** A plain JSON value: what span inputs, outputs, metadata and metric steps are stored as. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };
