import { z } from "zod";
import { isBlankText } from "../../test-case/llm-test-case.ts";

/** The shortest reason accepted, in characters (after trimming). */
export const MIN_REASON_CHARACTERS = 10;
/** The fewest words a reason must have. */
export const MIN_REASON_WORDS = 2;
/** The longest reason accepted, in characters: a reason explains a score in a few sentences. */
export const MAX_REASON_CHARACTERS = 3000;
/** The longest extracted item (opinion, statement) accepted, in characters. */
export const MAX_ITEM_CHARACTERS = 2000;

// A word is a letter or digit followed by letters, marks or digits (marks alone, emoji and
// control characters are no word); in scripts written without spaces (Chinese, Japanese,
// Thai) each character counts as one, so a Japanese sentence is not "one word".
const WORD =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]|[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Whether `text` has a letter or a digit: punctuation, blanks and invisible characters alone have none. */
export function hasLetterOrDigit(text: string): boolean {
  return LETTER_OR_DIGIT.test(text);
}

/** How many words `text` has (see {@link isRealSentence}). */
export function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

/**
 * Whether a reason is a real sentence rather than a fragment: after trimming, at least
 * {@link MIN_REASON_CHARACTERS} characters and {@link MIN_REASON_WORDS} words, and at most
 * {@link MAX_REASON_CHARACTERS} characters. `"The"`, `"ok"`, `"   "` and 3,000 characters of
 * padding are refused; `"Too rude."` (9 characters) is too, which costs a rare re-ask.
 */
export function isRealSentence(text: string): boolean {
  const trimmed = text.trim();
  return (
    trimmed.length >= MIN_REASON_CHARACTERS &&
    trimmed.length <= MAX_REASON_CHARACTERS &&
    countWords(trimmed) >= MIN_REASON_WORDS
  );
}

/** The text of a step-3 reason: a real sentence (see {@link isRealSentence}). */
export const reasonText = z
  .string()
  .min(1)
  .refine(isRealSentence, {
    error: (issue) => {
      const length = typeof issue.input === "string" ? issue.input.trim().length : 0;
      return length > MAX_REASON_CHARACTERS
        ? `the reason is ${length} characters long; give at most ${MAX_REASON_CHARACTERS}, a few sentences`
        : `the reason must be a whole sentence of at least ${MIN_REASON_WORDS} words and ${MIN_REASON_CHARACTERS} characters, got ${JSON.stringify(issue.input)}`;
    },
  });

/**
 * One extracted item (an opinion, a statement): text that shows something, at most
 * {@link MAX_ITEM_CHARACTERS} characters. An output that is only an emoji or symbols ("👍",
 * "?!") is extracted and scored as itself, as deepeval does. Blank items (by the rule that
 * refuses a blank `actualOutput`, {@link isBlankText}: whitespace, zero-width and other
 * invisible characters alone) and runaway text are refused.
 */
export const itemText = z
  .string()
  .refine((text) => !isBlankText(text) && text.trim().length <= MAX_ITEM_CHARACTERS, {
    error: (issue) =>
      typeof issue.input === "string" && issue.input.trim().length > MAX_ITEM_CHARACTERS
        ? `an item must be at most ${MAX_ITEM_CHARACTERS} characters, one sentence; this one has ${issue.input.trim().length}`
        : `an item must be text that shows (not blank or invisible characters), got ${JSON.stringify(issue.input)}`,
  });

// Unicode sentence boundaries (UAX #29, as Intl.Segmenter gives them) in a fixed locale, so
// the same text splits the same way on every machine.
const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });
// Boundaries the segmenter finds after an abbreviation or an initial ("Dr. Smith",
// "J. Smith", "e.g. this") that end no sentence. Short on purpose: "No." and "etc." often do
// end one.
const ABBREVIATION =
  /(?:^|[\s(])(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|Inc|Ltd|Fig|e\.g|i\.e|[A-Z])\.$/;

/**
 * The sentences of a text, in order and trimmed: Unicode sentence boundaries (a line break
 * ends a sentence too), not after a common abbreviation or an initial. Pieces without a
 * letter or digit ("…", "—") are no sentence. An image placeholder (`[image 1]`) is kept as
 * text, in the sentence it stands in or follows.
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  let pending = "";
  for (const { segment } of segmenter.segment(text)) {
    pending += segment;
    if (ABBREVIATION.test(pending.trimEnd())) continue;
    const sentence = pending.trim();
    if (hasLetterOrDigit(sentence)) sentences.push(sentence);
    pending = "";
  }
  const last = pending.trim();
  if (hasLetterOrDigit(last)) sentences.push(last);
  return sentences;
}
