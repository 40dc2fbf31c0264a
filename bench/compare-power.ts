// The regression statistics of `verdict compare` on simulated runs (issue 12): with 500 paired
// cases, how often a true 5-point pass-rate drop is flagged, and how often a zero change is
// (the false alarms), over 200 seeds each; the plain --max-drop rule for contrast.
//   node --conditions=verdict-source bench/compare-power.ts [--seeds 200] [--noise 0.05]
import { parseArgs } from "node:util";
import { flaggedShare } from "../test/fixtures/simulated-comparisons.ts";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "200" },
    noise: { type: "string", default: "0.03,0.05" },
  },
});
const seeds = Number(values.seeds);
const noise = Number(values.noise);
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
console.log(
  `500 paired cases, judge noise ${noise} (verdict flip probability), ${seeds} seeds each:\n`,
);
console.log(
  "| true change | flagged (paired tests, alpha 0.05) | flagged (plain rule, --no-stats) |",
);
console.log("|---|---|---|");
for (const drop of [0.05, 0.02, 0]) {
  const tested = flaggedShare({ seeds, drop, noise });
  const plain = flaggedShare({ seeds, drop, noise, alpha: null });
  console.log(
    `| ${drop === 0 ? "none" : `${drop * 100}-point drop`} | ${percent(tested)} | ${percent(plain)} |`,
  );
}
