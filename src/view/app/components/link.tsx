import type { ComponentChildren } from "preact";
import { navigate } from "../router.ts";

/** A real link (keyboard, middle-click, "copy link" work) that navigates inside the app. */
export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  rel?: string;
  "aria-current"?: "page" | undefined;
}) {
  const { href, children, ...rest } = props;
  return (
    <a
      {...rest}
      href={href}
      onClick={(event) => {
        if (event.defaultPrevented || event.button !== 0) return;
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
