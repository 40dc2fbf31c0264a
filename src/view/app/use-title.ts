import { useEffect } from "preact/hooks";

/** Sets the tab's title to `<title> · verdict view` while the page is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · verdict view`;
  }, [title]);
}
