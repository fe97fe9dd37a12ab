// The emission log of the /transitive-state/* pages (transitive-state): each distinct
// "<pathname> - <value>" the page renders with, in order, for one value of useAuth (`userId` or `orgId`).
// An entry is added while rendering, not in an effect, so a value that lasts for one render only (the
// `undefined` useAuth gives between two sessions or organizations) is in the log too, as in Clerk's
// next-app-router template. The layouts that show it stay mounted from one path to the next.
import { useAuth } from "@clerk/react-router";
import { useState } from "react";
import { useLocation } from "react-router";

function EmissionLog({ entry }: { entry: string }) {
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

/** The log of useAuth's `of` on each path, under its heading. */
export function AuthEmissionLog({ of }: { of: "userId" | "orgId" }) {
  const auth = useAuth();
  const { pathname } = useLocation();
  return (
    <div style={{ marginBottom: "20px" }}>
      <h2>Emission log</h2>
      <EmissionLog entry={`${pathname} - ${String(auth[of])}`} />
    </div>
  );
}
