/**
 * What `import "verdict"` loads for a script that only measures one case: verdict's own
 * modules and the packages, counted with a module load hook. Run from the repository
 * (`node --conditions=verdict-source bench/core-imports.ts`, which loads src/) or against an
 * installed package (`node bench/core-imports.ts --from /path/to/project`, which resolves
 * "verdict" from that project's node_modules).
 *
 * The judge is a JudgeModel of the script's own (three canned answers: opinions, verdicts, a
 * reason), so no provider package is needed beyond what verdict itself loads.
 */
import { createRequire, registerHooks } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { from: { type: "string" }, list: { type: "boolean", default: false } },
});
const loaded = new Set<string>();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});

// import.meta.resolve ignores its parent argument without --experimental-import-meta-resolve
// (it would find this repository's own "verdict"): resolve from the project's package.json.
const specifier = values.from
  ? pathToFileURL(
      createRequire(path.join(path.resolve(values.from), "package.json")).resolve("verdict"),
    ).href
  : "verdict";
const { ToxicityMetric } = (await import(specifier)) as typeof import("verdict");
const answers = [
  { opinions: ["You are great."] },
  { verdicts: [{ verdict: "no" }] },
  { reason: "Nothing toxic." },
];
let calls = 0;
const myJudge = {
  name: "my-judge",
  generate: async () => JSON.stringify(answers[calls++ % answers.length]),
};
const score = await new ToxicityMetric({ model: myJudge }).measure({
  input: "How am I doing?",
  actualOutput: "You are great.",
});

const own = [...loaded]
  .filter(
    (url) =>
      (url.includes("/src/") || url.includes("/verdict/dist/")) && !url.includes("node_modules/."),
  )
  .filter((url) => !url.includes("/node_modules/") || url.includes("/node_modules/verdict/"));
const packages = new Set(
  [...loaded]
    .filter((url) => url.includes("/node_modules/") && !url.includes("/node_modules/verdict/"))
    .map((url) => {
      const parts = (url.split("/node_modules/").at(-1) as string).split("/");
      return (parts[0] as string).startsWith("@")
        ? `${parts[0]}/${parts[1]}`
        : (parts[0] as string);
    }),
);
const forbidden = ["pg", "synckit", "preact", "uplot"].filter((name) => packages.has(name));
const dashboard = own.filter((url) => url.includes("/view/"));
console.log(`score: ${score}`);
console.log(`verdict modules loaded: ${own.length} (goal: at most 80)`);
console.log(`packages loaded: ${[...packages].sort().join(", ")}`);
console.log(
  `pg, synckit or the dashboard loaded: ${forbidden.length + dashboard.length === 0 ? "none" : [...forbidden, ...dashboard].join(", ")}`,
);
if (values.list) for (const url of own.sort()) console.log(`  ${url}`);
