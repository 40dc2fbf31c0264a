import { useState } from "preact/hooks";
import { MISSING_VALUE, showControlCharacters } from "../../../report/format.ts";
import type { CaseDetail } from "../../case-views.ts";
import { apiPath, fetchJson } from "../api-client.ts";

/** A case's text field, as the case table shows it. */
type Field = "input" | "actualOutput" | "expectedOutput";

/**
 * A text of a case in the table: cut to a few lines, all of what the row holds on hover, and
 * a "Show all" button that opens it in place, whole (read from the case's page when the row
 * holds only its start). Shown as text, control characters made visible.
 */
export function ExpandableText(props: {
  text: string | null;
  /** The text's whole length; longer than `text` when the row holds only its start. */
  length: number | null;
  runId: string;
  caseKey: string;
  field: Field;
  /** What the text is, for the button's accessible name, e.g. "output of refund". */
  label: string;
}) {
  const [open, setOpen] = useState(false);
  const [whole, setWhole] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  if (props.text === null) return <span class="cell-empty">{MISSING_VALUE}</span>;
  const cut = props.length !== null && props.length > props.text.length;
  const shown = open && whole !== null ? whole : props.text;
  const toggle = async () => {
    if (open) {
      setOpen(false);
      return;
    }
    setOpen(true);
    if (!cut || whole !== null) return;
    try {
      const path = `/api/runs/${encodeURIComponent(props.runId)}/cases/${encodeURIComponent(props.caseKey)}`;
      const detail = await fetchJson<CaseDetail>(apiPath(path));
      setWhole(detail[props.field] ?? "");
    } catch {
      setFailed(true);
    }
  };
  // About what three lines of the narrowest column hold.
  const long = cut || props.text.length > 80 || props.text.includes("\n");
  return (
    <span class={open ? "cell-text cell-text-open" : "cell-text"}>
      <span class="cell-text-body" title={open ? undefined : showControlCharacters(props.text)}>
        {showControlCharacters(shown)}
        {cut && (!open || whole === null) ? "…" : ""}
      </span>
      {open && failed && (
        <span class="cell-note">Could not load the rest: open the case to read it whole.</span>
      )}
      {long && (
        <button
          type="button"
          class="button-link cell-text-toggle"
          aria-expanded={open}
          aria-label={`${open ? "Show less of" : "Show all of"} the ${props.label}`}
          onClick={() => void toggle()}
        >
          {open ? "Show less" : "Show all"}
        </button>
      )}
    </span>
  );
}
