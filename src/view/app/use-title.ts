import { useEffect } from "preact/hooks";
import { showName } from "../../report/format.ts";

/** Sets the tab's title to `<title> · verdict view` while the page is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${showName(title)} · verdict view`;
  }, [title]);
}
