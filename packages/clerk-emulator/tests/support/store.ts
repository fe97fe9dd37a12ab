import { DEFAULT_SETTINGS } from "../../src/settings";
import { Store } from "../../src/state/store";

/** A store as the emulator makes one when no setting is given: in memory unless `file` names its state file. */
export function storeWithDefaults(file: string | null = null): Store {
  return new Store(file, { ...DEFAULT_SETTINGS, publicUrl: "" });
}
