/**
 * Import rules checked by `npm run lint` (dependency-cruiser): no cycles between files, and
 * (with --collapse, see package.json) none between the top-level folders of src/.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles make the layering unreadable: move the shared part into a leaf.",
      from: {},
      to: { circular: true },
    },
    {
      name: "results-is-a-leaf",
      severity: "error",
      comment: "src/results/ is the leaf every folder may import; it imports no other folder.",
      from: { path: "^src/results/" },
      to: { path: "^src/(?!results/)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    // Tests and test-only modules (contracts, fixtures) may import from anywhere.
    exclude: { path: "(\\.test|-contract|-fixtures)\\.ts$" },
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
