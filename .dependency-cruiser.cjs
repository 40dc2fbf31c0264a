/**
 * Import rules checked by `npm run lint` (dependency-cruiser): no import cycles between files,
 * and the folders of src/ in layers — a folder imports only folders of lower layers, so there
 * can be no cycle between folders either. src/secrets/ is the leaf, then src/results/ and src/errors/.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const LAYERS = [
  // The secret redactor sits below everything, so every error message and every writer can use it.
  ["secrets"],
  // csv/: the one CSV writer and its formula rule, which datasets, reports and the dashboard share.
  ["results", "errors", "csv"],
  ["config", "test-case"],
  ["judge"],
  ["metrics", "store", "dataset"],
  ["testing", "tracing", "report"],
  ["evaluate"],
  // Above evaluate(): Vitest's assertions, calibration, and scoring while fine-tuning.
  ["vitest", "calibrate", "finetune"],
  // The dashboard: its server reads the store and renders the reports; the CLI starts it.
  ["view"],
  ["cli"],
];

const layerRules = LAYERS.flatMap((folders, layer) =>
  folders.map((folder) => {
    const notLower = LAYERS.slice(layer)
      .flat()
      .filter((other) => other !== folder);
    return {
      name: `layers-${folder}`,
      severity: "error",
      comment: `src/${folder}/ may import only folders of lower layers (see LAYERS in .dependency-cruiser.cjs).`,
      from: { path: `^src/${folder}/` },
      to: { path: `^src/(${notLower.join("|")})/` },
    };
  }),
);

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles make the layering unreadable: move the shared part into a leaf.",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    // Tests and test-only modules (contracts, fixtures) may import from anywhere.
    exclude: { path: "(\\.test|-contract|-fixtures)\\.ts$" },
    // TypeScript 7 has no compiler API for dependency-cruiser yet: swc parses the sources.
    parser: "swc",
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
