import { showControlCharacters } from "../../../report/format.ts";

/**
 * Text from a test case or the judge, shown as text (never as markup), with control characters
 * made visible as the reports show them.
 */
export function TextBlock(props: { text: string | null; missing?: string }) {
  if (props.text === null) {
    return <p class="text text-missing">{props.missing ?? "none"}</p>;
  }
  // A long text scrolls inside its box: keyboard users must be able to focus it to scroll it.
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box is reached by keyboard
    <pre class="text" tabIndex={0}>
      {showControlCharacters(props.text)}
    </pre>
  );
}

/** A value of a span (any JSON) as indented text. */
export function JsonBlock(props: { value: unknown }) {
  const text =
    typeof props.value === "string"
      ? props.value
      : (JSON.stringify(props.value, null, 2) ?? "null");
  return <TextBlock text={text} />;
}
