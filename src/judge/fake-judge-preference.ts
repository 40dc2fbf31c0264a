// Which enum values of a step's schema mean "nothing wrong", for the built-in fake judge. A
// metric whose clean verdict is "yes" (relevant, attributable, agrees) marks its verdict
// schema here, so that the fake judge lets it pass as it lets Toxicity pass with "no". Kept
// beside the schema object, never in the JSON Schema sent to judges (the request is unchanged).
// Apart from the fake judge itself, so that a metric marking its schema never loads it.
const preferences = new WeakMap<object, readonly unknown[]>();

/**
 * Marks `values` as what the fake judge answers for any enum of `schema` that offers one of
 * them (first match wins). Returns `schema`.
 */
export function preferInFakeJudge<Schema extends object>(
  schema: Schema,
  values: readonly unknown[],
): Schema {
  preferences.set(schema, values);
  return schema;
}

/** The values marked for `schema` by {@link preferInFakeJudge}; `null` when none. */
export function fakeJudgePreference(schema: object): readonly unknown[] | null {
  return preferences.get(schema) ?? null;
}
