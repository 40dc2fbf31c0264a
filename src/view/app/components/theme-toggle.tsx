import { chooseTheme, useTheme } from "../theme.ts";

/** Switches between light and dark mode; the choice is remembered. */
export function ThemeToggle() {
  const theme = useTheme();
  const next = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      class="theme-toggle"
      aria-pressed={theme === "dark"}
      onClick={() => chooseTheme(next)}
    >
      <span aria-hidden="true">{theme === "dark" ? "☾" : "☀"}</span> Dark mode
    </button>
  );
}
