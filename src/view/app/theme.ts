import { useEffect, useState } from "preact/hooks";

/**
 * Light and dark mode: the system's preference (`prefers-color-scheme`) until the user picks
 * one with the header's toggle, which is remembered in localStorage. The choice is the
 * `data-theme` attribute of `<html>`, which the stylesheet reads.
 */
export type Theme = "light" | "dark";

const STORAGE_KEY = "verdict-view-theme";
const THEME_EVENT = "verdict-theme";
const DARK_QUERY = "(prefers-color-scheme: dark)";

function storedTheme(): Theme | null {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return value === "light" || value === "dark" ? value : null;
  } catch {
    return null;
  }
}

/** The theme in effect: the stored choice, else the system's. */
export function currentTheme(): Theme {
  return storedTheme() ?? (window.matchMedia(DARK_QUERY).matches ? "dark" : "light");
}

/** Applies the stored choice to `<html>` (at start-up, before the first render). */
export function applyStoredTheme(): void {
  const theme = storedTheme();
  if (theme === null) delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

/** Picks a theme and remembers it. */
export function chooseTheme(theme: Theme): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, theme);
  } catch {
    // Storage may be disabled: the choice then lasts until the page is reloaded.
  }
  document.documentElement.dataset.theme = theme;
  window.dispatchEvent(new Event(THEME_EVENT));
}

/** The theme in effect, updated when the user or the system changes it (charts redraw). */
export function useTheme(): Theme {
  const [theme, setTheme] = useState(currentTheme);
  useEffect(() => {
    const update = () => setTheme(currentTheme());
    const media = window.matchMedia(DARK_QUERY);
    media.addEventListener("change", update);
    window.addEventListener(THEME_EVENT, update);
    return () => {
      media.removeEventListener("change", update);
      window.removeEventListener(THEME_EVENT, update);
    };
  }, []);
  return theme;
}
