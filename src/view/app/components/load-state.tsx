import type { ApiError } from "../api-client.ts";
import { Link } from "./link.tsx";

/** An API error as the page's content: what failed and what to do. */
export function ErrorNotice(props: { error: ApiError; what: string }) {
  const notFound = props.error.status === 404;
  return (
    <div class="notice notice-error" role="alert">
      <p>
        <strong>{notFound ? `No such ${props.what}.` : `Could not load the ${props.what}.`}</strong>{" "}
        {props.error.message}
      </p>
      <p>
        <Link href="/">Back to all runs</Link>
      </p>
    </div>
  );
}

/** Shown while a page's first answer is on its way. */
export function Loading(props: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading the {props.what}…
    </p>
  );
}
