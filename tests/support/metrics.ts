/**
 * Prometheus's text format, read the simple way tests need: each sample's
 * name with its labels as written (`http_requests_total{route="health",…}`)
 * → its value.
 */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*(?:\{.*\})?) (\S+)$/.exec(line);
    if (match) samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

/** One instance's metrics, from its metrics port on loopback. */
export async function scrapeMetrics(port: number): Promise<Map<string, number>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (res.status !== 200) throw new Error(`metrics port ${port} answered ${res.status}`);
  return parseMetrics(await res.text());
}
