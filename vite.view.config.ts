import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

/**
 * Builds the dashboard's browser app (src/view/app/) into dist/view-app/: index.html and
 * hashed assets that `verdict view` serves. Vite 8 transforms TSX with oxc; JSX goes to
 * Preact's automatic runtime, so no Preact plugin is needed (no dev server, no fast refresh).
 */
const ROOT = fileURLToPath(new URL("src/view/app", import.meta.url));
const OUT_DIR = fileURLToPath(new URL("dist/view-app", import.meta.url));
const STAGING_DIR = `${OUT_DIR}.next`;
const PREVIOUS_DIR = `${OUT_DIR}.previous`;

/**
 * Writes the build next to dist/view-app/ and then swaps it in with two renames, so that a
 * `verdict view` serving the folder never finds it half-written or gone (`npm pack` rebuilds
 * while the browser tests run).
 */
function swapIntoPlace(): Plugin {
  return {
    name: "verdict-view-app-swap",
    apply: "build",
    closeBundle() {
      if (!existsSync(join(STAGING_DIR, "index.html"))) return;
      rmSync(PREVIOUS_DIR, { recursive: true, force: true });
      if (existsSync(OUT_DIR)) renameSync(OUT_DIR, PREVIOUS_DIR);
      renameSync(STAGING_DIR, OUT_DIR);
      rmSync(PREVIOUS_DIR, { recursive: true, force: true });
    },
  };
}

export default defineConfig({
  root: ROOT,
  base: "/",
  publicDir: false,
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  plugins: [swapIntoPlace()],
  build: {
    outDir: STAGING_DIR,
    emptyOutDir: true,
    // No source maps: the package ships no sources for them to point at.
    sourcemap: false,
    target: "es2022",
    // Browsers with CSS light-dark() (2024 on): the stylesheet stays as written, not polyfilled.
    cssTarget: ["chrome123", "edge123", "firefox120", "safari17.5"],
    // Every browser the dashboard supports has module preload: no polyfill in the bundle.
    modulePreload: { polyfill: false },
    // Inline nothing as data: URLs, so the page's CSP needs no `data:` source.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
