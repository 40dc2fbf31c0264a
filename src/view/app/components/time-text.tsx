/** `2025-06-01 10:00:00 UTC` (the HTML report's format), or `10:00 UTC` with `short`. */
export function formatTime(iso: string, options: { withSeconds?: boolean } = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = date.toISOString().slice(0, options.withSeconds === false ? 16 : 19);
  return `${text.replace("T", " ")} UTC`;
}

/** A time as `<time>`: UTC, so the same run reads the same wherever it is opened. */
export function TimeText(props: { iso: string; withSeconds?: boolean }) {
  const date = new Date(props.iso);
  if (Number.isNaN(date.getTime())) return <span>{props.iso}</span>;
  return (
    <time dateTime={date.toISOString()}>
      {formatTime(props.iso, { withSeconds: props.withSeconds ?? true })}
    </time>
  );
}
