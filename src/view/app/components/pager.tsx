import { formatCount } from "../../../report/format.ts";

/**
 * "Cases 101–200 of 10,000" with Previous / Next buttons. `offset` and `limit` are the page's;
 * `onOffset` goes to another page.
 */
export function Pager(props: {
  label: string;
  offset: number;
  limit: number;
  total: number;
  onOffset: (offset: number) => void;
}) {
  const { offset, limit, total } = props;
  if (total <= limit && offset === 0) {
    return null;
  }
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(total, offset + limit);
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button
        type="button"
        disabled={offset === 0}
        onClick={() => props.onOffset(Math.max(0, offset - limit))}
      >
        ← Previous
      </button>
      <p>
        {props.label} {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
        <span class="pager-page">
          {" "}
          · page {formatCount(page)} of {formatCount(pages)}
        </span>
      </p>
      <button type="button" disabled={last >= total} onClick={() => props.onOffset(offset + limit)}>
        Next →
      </button>
    </nav>
  );
}
