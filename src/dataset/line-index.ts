/**
 * Maps offsets in a text (string indices, or byte offsets in UTF-8 bytes) to 1-based line
 * numbers. Only `\n` ends a line, so `\r\n` files count right and a `\r` alone is not a line.
 */
export function lineIndex(text: string | Uint8Array): (offset: number) => number {
  const breaks: number[] = [];
  if (typeof text === "string") {
    for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
      breaks.push(index);
    }
  } else {
    for (let index = text.indexOf(0x0a); index !== -1; index = text.indexOf(0x0a, index + 1)) {
      breaks.push(index);
    }
  }
  return (offset) => {
    let low = 0;
    let high = breaks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((breaks[middle] as number) < offset) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
}
