/** Why a URL cannot be sent as an image, or `null`: http(s) with a host, no raw whitespace. */
export function httpUrlProblem(url: string): string | null {
  if (/\s/.test(url)) return "contains whitespace: encode spaces as %20";
  if (!/^https?:\/\/[^/?#]/i.test(url)) return "has no host: write it as https://host/path.png";
  try {
    const parsed = new URL(url);
    return parsed.hostname === "" ? "has no host: write it as https://host/path.png" : null;
  } catch {
    return "is not a valid URL: check it in a browser";
  }
}

/**
 * Why `value` is not a well-formed image part (the shape `image()` makes), or `null`.
 * Says what is missing or wrong, for messages that name the field.
 */
export function imagePartProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return "is not an image part";
  const part = value as { type?: unknown; source?: unknown; mediaType?: unknown };
  if (part.type !== "image") return 'is not an image part (its "type" is not "image")';
  if (part.mediaType !== undefined && typeof part.mediaType !== "string") {
    return "has a mediaType that is not a string";
  }
  const source = part.source as Record<string, unknown> | null | undefined;
  if (typeof source !== "object" || source === null) return "has no source";
  switch (source.kind) {
    case "url":
      if (typeof source.url !== "string") return "has a url source without a url string";
      return httpUrlProblem(source.url) === null
        ? null
        : `has an unusable URL ${JSON.stringify(source.url)}`;
    case "data-url":
      return typeof source.url === "string" && /^data:/i.test(source.url)
        ? null
        : "has a data-url source without a data: URL";
    case "file":
      return typeof source.path === "string" && source.path.trim() !== ""
        ? null
        : "has a file source without a path";
    case "bytes":
      return source.data instanceof Uint8Array ? null : "has a bytes source without bytes";
    default:
      return `has an unknown source kind ${JSON.stringify(source.kind)}`;
  }
}
