/**
 * What a dry run reads in a text before any judge call, to guess what the judge will extract
 * from it: its sentences, whether each one judges rather than states, and the words that say
 * what it is about. Plain heuristics, calibrated on the realistic fake judge of the benches
 * (`bench/realistic-judge.ts`): they set the expected number of items, never a score.
 */

const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });

// Words that judge: evaluative adjectives and adverbs, modal advice. A sentence holding one is
// an opinion for nearly every judge.
const EVALUATIVE =
  /\b(?:good|better|best|bad|worse|worst|great(?:er|est)?|excellent|poor(?:ly)?|perfect(?:ly)?|worth\w*|important|essential|crucial|valuable|useful|useless|eas(?:y|ier|iest)|hard(?:er|est)?|difficult|simpl(?:e|er|est)|misunderstood|should|must|ought)\b/i;
// Words of feeling, insult and emphasis, and first-person views: an opinion for many judges but
// not all (some take an insult or a feeling for a fact about the speaker).
const CHARGED =
  /\b(?:amazing|awesome|wonderful|fantastic|terrible|horrible|awful|nice|beautiful|ugly|brilliant|smart|stupid\w*|dumb|idiot\w*|moron\w*|fool\w*|lazy|crazy|ridiculous|pathetic|disgust\w*|confusing|boring|interesting|fascinating|funny|annoying|lov(?:e|es|ed|ely)|hat(?:e|es|ed|eful)|prefer\w*|favou?rite|deserv\w*|overrated|underrated|wrong|unfortunate(?:ly)?|sadly|hopefully|honestly|obviously|arguably|impressive|remarkable|outstanding|superior|inferior|evil|disgrac\w*|trash|garbage|suck\w*|damn\w*|fuck\w*|shit\w*|nasty|gross|loser\w*|jerk\w*|scum|vile)\b|\bI (?:think|believe|feel|guess|suppose)\b|\bin my (?:opinion|view)\b/i;

const STOP_WORDS = new Set([
  "about",
  "after",
  "again",
  "being",
  "below",
  "could",
  "every",
  "other",
  "there",
  "their",
  "these",
  "thing",
  "those",
  "under",
  "until",
  "where",
  "which",
  "while",
  "would",
]);

/** The sentences of a text, trimmed, blank ones left out. */
export function splitSentences(text: string): string[] {
  const found: string[] = [];
  for (const { segment } of SENTENCES.segment(text)) {
    const sentence = segment.trim();
    if (sentence !== "") found.push(sentence);
  }
  return found;
}

/**
 * How plainly a sentence judges rather than states: `"evaluative"` when it holds a word that
 * judges (good, worst, worth, should…), `"charged"` when it holds only words of feeling, insult
 * or emphasis or a first-person view (love, stupid, I think…), else `"plain"`.
 */
export function judgementOf(sentence: string): "evaluative" | "charged" | "plain" {
  if (EVALUATIVE.test(sentence)) return "evaluative";
  return CHARGED.test(sentence) ? "charged" : "plain";
}

/** The words of five letters or more that say what a text is about (lower case, a few common ones left out). */
export function contentWords(text: string): Set<string> {
  return new Set(
    (text.toLowerCase().match(/\p{L}{5,}/gu) ?? []).filter((word) => !STOP_WORDS.has(word)),
  );
}
