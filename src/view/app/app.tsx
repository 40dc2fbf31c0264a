import { useEffect, useRef } from "preact/hooks";
import { Link } from "./components/link.tsx";
import { ThemeToggle } from "./components/theme-toggle.tsx";
import { CalibrationPage } from "./pages/calibration-page.tsx";
import { CalibrationsPage } from "./pages/calibrations-page.tsx";
import { CasePage } from "./pages/case-page.tsx";
import { ComparePage } from "./pages/compare-page.tsx";
import { RunPage } from "./pages/run-page.tsx";
import { RunsPage } from "./pages/runs-page.tsx";
import { parseRoute, type Route, useLocation } from "./router.ts";

/** The page of a route. */
function Page(props: { route: Route }) {
  const { route } = props;
  switch (route.page) {
    case "runs":
      return <RunsPage query={route.query} />;
    case "run":
      // Keyed: another run's page (a watch session's next run) starts afresh, live state too.
      return <RunPage key={route.runId} runId={route.runId} query={route.query} />;
    case "case":
      return <CasePage runId={route.runId} caseKey={route.caseKey} />;
    case "compare":
      return <ComparePage runId={route.runId} baselineId={route.baselineId} />;
    case "calibrations":
      return <CalibrationsPage runId={route.runId} />;
    case "calibration":
      return <CalibrationPage calibrationId={route.calibrationId} />;
    default:
      return (
        <section class="notice notice-error">
          <h1 tabIndex={-1}>Page not found</h1>
          <p>
            The dashboard has no page at <code>{route.path}</code>. <Link href="/">All runs</Link>
          </p>
        </section>
      );
  }
}

/**
 * `/` anywhere but in a text field focuses the page's search box (the element marked
 * `data-search`), as in most dashboards.
 */
function useSearchShortcut() {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable='true']")) return;
      const search = document.querySelector<HTMLInputElement>("[data-search]");
      if (!search) return;
      event.preventDefault();
      search.focus();
      search.select();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);
}

/** The dashboard: header, the routed page in `<main>`, footer. */
export function App() {
  const location = useLocation();
  const route = parseRoute(location.pathname, location.search);
  const main = useRef<HTMLElement>(null);
  const firstPath = useRef(location.pathname);
  useSearchShortcut();

  // A new page (not a changed filter): start at its top and move focus there, as a full page
  // load would, so keyboard and screen-reader users land on the new content.
  useEffect(() => {
    if (location.pathname === firstPath.current) return;
    firstPath.current = location.pathname;
    window.scrollTo(0, 0);
    main.current?.focus({ preventScroll: true });
  }, [location.pathname]);

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="app-header">
        <nav aria-label="Dashboard">
          <Link href="/" class="brand">
            <span aria-hidden="true">⚖</span> verdict
          </Link>
          <Link href="/" aria-current={route.page === "runs" ? "page" : undefined}>
            Runs
          </Link>
          <Link href="/compare" aria-current={route.page === "compare" ? "page" : undefined}>
            Compare
          </Link>
          <Link
            href="/calibrations"
            aria-current={
              route.page === "calibrations" || route.page === "calibration" ? "page" : undefined
            }
          >
            Calibrations
          </Link>
        </nav>
        <p class="keyboard-hint">
          Press <kbd>/</kbd> to search
        </p>
        <ThemeToggle />
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Page route={route} />
      </main>
      <footer class="app-footer">
        <p>verdict view · read from this machine's store · nothing leaves this machine</p>
      </footer>
    </>
  );
}
