// The emission log of the /transitive-state/* pages (transitive-state): each distinct
// "<pathname> - <value>" the page renders with, in order. An entry is added while rendering, not in an
// effect, so a value that lasts for one render only (the `undefined` useAuth gives between two
// sessions or organizations) is in the log too, as in Clerk's next-app-router template.
import { useState } from "react";

export function EmissionLog({ entry }: { entry: string }) {
  const [entries, setEntries] = useState<string[]>([]);
  if (entries[entries.length - 1] !== entry) setEntries([...entries, entry]);
  return (
    <ul data-testid="emission-log">
      {entries.map((text, i) => (
        <li key={i} data-testid={`emission-${i}`}>
          {text}
        </li>
      ))}
    </ul>
  );
}
