import { diffWordsWithSpace } from "diff";

/** A run of words that both texts share, or that only one of them has. */
export interface WordDiffPart {
  /** `"same"`: in both; `"removed"`: only in the first (the baseline's); `"added"`: only in the second. */
  kind: "same" | "removed" | "added";
  text: string;
}

/** Texts longer than this (in characters, either side) are shown whole, not diffed. */
export const MAX_DIFFED_CHARACTERS = 20_000;
/** Two texts that differ in more words than this are shown whole: a diff would be noise. */
const MAX_EDITED_WORDS = 2_000;

/**
 * The word-level difference of two texts (words, punctuation, runs of white space, newlines
 * are the units), with jsdiff's Myers diff: the `"same"` and `"removed"` parts spell `before`,
 * the `"same"` and `"added"` parts spell `after`. `null` when there is nothing to diff (a text
 * is missing), when either is longer than {@link MAX_DIFFED_CHARACTERS}, or when they differ in
 * so many words that a diff would say nothing (the time taken stays bounded either way).
 * @example
 * diffWords("It ships in two days.", "It ships in three days.");
 * // same "It ships in ", removed "two", added "three", same " days."
 */
export function diffWords(before: string | null, after: string | null): WordDiffPart[] | null {
  if (before === null || after === null) return null;
  if (before.length > MAX_DIFFED_CHARACTERS || after.length > MAX_DIFFED_CHARACTERS) return null;
  const changes = diffWordsWithSpace(before, after, { maxEditLength: MAX_EDITED_WORDS });
  if (changes === undefined) return null;
  const raw = changes.map(
    (change): WordDiffPart => ({
      kind: change.added ? "added" : change.removed ? "removed" : "same",
      text: change.value,
    }),
  );
  return groupChanges(raw);
}

/**
 * Reads as a person would: the white space between two changed words joins them into one
 * change (`[-a b-]{+c d+}`, not `[-a-]{+c+} [-b-]{+d+}`), white space both sides of a change
 * end with stays outside it, and runs of one kind are one part.
 */
function groupChanges(raw: readonly WordDiffPart[]): WordDiffPart[] {
  const parts: WordDiffPart[] = [];
  const push = (kind: WordDiffPart["kind"], text: string) => {
    if (text === "") return;
    const last = parts.at(-1);
    if (last?.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  let removed = "";
  let added = "";
  const flush = () => {
    const shared = commonWhitespaceEnd(removed, added);
    push("removed", removed.slice(0, removed.length - shared.length));
    push("added", added.slice(0, added.length - shared.length));
    push("same", shared);
    removed = "";
    added = "";
  };
  for (const [position, part] of raw.entries()) {
    if (part.kind === "removed") removed += part.text;
    else if (part.kind === "added") added += part.text;
    else if (
      removed !== "" &&
      added !== "" &&
      /^\s+$/.test(part.text) &&
      (raw[position + 1]?.kind ?? "same") !== "same"
    ) {
      removed += part.text;
      added += part.text;
    } else {
      flush();
      push("same", part.text);
    }
  }
  flush();
  return parts;
}

/** The white space both texts end with (when both are non-empty). */
function commonWhitespaceEnd(left: string, right: string): string {
  if (left === "" || right === "") return "";
  let length = 0;
  while (
    length < Math.min(left.length, right.length) &&
    left[left.length - 1 - length] === right[right.length - 1 - length] &&
    /\s/.test(left[left.length - 1 - length] ?? "")
  ) {
    length += 1;
  }
  return left.slice(left.length - length);
}

/**
 * A word diff as plain text, as `git diff --word-diff=plain` writes one: removed words as
 * `[-…-]`, added ones as `{+…+}`.
 */
export function formatWordDiff(parts: readonly WordDiffPart[]): string {
  return parts
    .map((part) =>
      part.kind === "same"
        ? part.text
        : part.kind === "removed"
          ? `[-${part.text}-]`
          : `{+${part.text}+}`,
    )
    .join("");
}
