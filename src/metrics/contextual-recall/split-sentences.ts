import { hasLetterOrDigit } from "../shared/answer-text.ts";

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
