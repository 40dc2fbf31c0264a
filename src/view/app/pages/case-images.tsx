import type { ImageView } from "../../case-views.ts";

const FIELD_LABELS: Record<ImageView["field"], string> = {
  input: "input",
  actualOutput: "output",
  expectedOutput: "expected output",
};

/** Only the API's own image route is ever loaded by the page. */
function isOwnImage(src: string): boolean {
  return src.startsWith("/api/") && !src.startsWith("//");
}

/** An `http(s):` URL can be offered as a link; anything else (`javascript:`, `data:`) is text. */
function isWebUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * A case's images: stored bytes and local files are shown from the dashboard's own API; a
 * remote URL is never fetched by the page — it is a link the user may follow.
 */
export function CaseImages(props: { images: ImageView[] }) {
  return (
    <ul class="images">
      {props.images.map((image) => {
        const caption = `Image ${image.number} of the ${FIELD_LABELS[image.field] ?? image.field}: ${image.label}`;
        return (
          <li class="image" key={`${image.field}:${image.number}`}>
            <figure>
              {image.src !== null && isOwnImage(image.src) ? (
                <img src={image.src} alt={caption} loading="lazy" />
              ) : (
                <div class="image-remote">
                  <p>Not loaded: this image is on another server.</p>
                  {image.remoteUrl !== null && isWebUrl(image.remoteUrl) ? (
                    <a href={image.remoteUrl} target="_blank" rel="noopener noreferrer">
                      Open the remote image
                    </a>
                  ) : (
                    <p class="cell-note">Its source is not a web address.</p>
                  )}
                </div>
              )}
              <figcaption>{caption}</figcaption>
            </figure>
          </li>
        );
      })}
    </ul>
  );
}
