/**
 * A 95% confidence interval under its figure (`95% CI 0.62–0.78`), as the HTML report shows
 * it; nothing when there is none (`text` is `""`, as the interval formats give for none).
 */
export function IntervalNote(props: { text: string }) {
  if (props.text === "") return null;
  return <small class="interval">95% CI {props.text}</small>;
}
