/** Milliseconds with precision that fits their size: 0.42, 3.18, 41.7, 523. */
export function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US");
}

/** Operations per second: 12.3, 845, 1,530. */
export function rate(value: number): string {
  return value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US");
}

/** A ratio: 0.53×, 4.2×, 171×. */
export function times(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US")}×`;
}

export function percent(fraction: number): string {
  return `${fraction >= 0 ? "+" : ""}${(fraction * 100).toFixed(1)} %`;
}

export function mb(value: number): string {
  return `${value.toFixed(1)} MB`;
}

export function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** 1k, 10k, 100k, 250 */
export function size(value: number): string {
  return value >= 1000 && value % 1000 === 0 ? `${value / 1000}k` : String(value);
}

export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
