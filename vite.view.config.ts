import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/**
 * Builds the dashboard's browser app (src/view/app/) into dist/view-app/: index.html and
 * hashed assets that `verdict view` serves. Vite 8 transforms TSX with oxc; JSX goes to
 * Preact's automatic runtime, so no Preact plugin is needed (no dev server, no fast refresh).
 */
export const VIEW_APP_ROOT = fileURLToPath(new URL("src/view/app", import.meta.url));
export const VIEW_APP_OUT_DIR = fileURLToPath(new URL("dist/view-app", import.meta.url));

export default defineConfig({
  root: VIEW_APP_ROOT,
  base: "/",
  publicDir: false,
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: VIEW_APP_OUT_DIR,
    emptyOutDir: true,
    // No source maps: the package ships no sources for them to point at.
    sourcemap: false,
    target: "es2022",
    // Every browser the dashboard supports has module preload: no polyfill in the bundle.
    modulePreload: { polyfill: false },
    // Inline nothing as data: URLs, so the page's CSP needs no `data:` source.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
