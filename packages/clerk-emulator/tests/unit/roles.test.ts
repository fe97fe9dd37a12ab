import { describe, expect, it } from "vitest";
import { changeRole } from "../../src/domain/memberships";
import { createPermission, createRole, updateRole } from "../../src/domain/role-changes";
import { isCreatorEligible, permissionKeysOf } from "../../src/domain/roles";
import { seedState, upgrade } from "../../src/state/seed";
import { storeWithDefaults } from "../support/store";

describe("the emulator's organization roles", () => {
  it("an older state file, with no roles, loads with Clerk's default roles and no custom permissions", () => {
    const old = seedState() as Partial<ReturnType<typeof seedState>>;
    delete old.roles;
    delete old.permissions;
    delete old.membershipRequests;
    const state = upgrade(old as ReturnType<typeof seedState>);
    expect(state.roles.map((r) => r.key)).toEqual(["org:admin", "org:member"]);
    expect(state.permissions).toEqual([]);
    expect(state.membershipRequests).toEqual([]);
    const store = { state };
    expect(permissionKeysOf(store, "org:member")).toEqual(["org:sys_memberships:read"]);
    expect(permissionKeysOf(store, "org:admin")).toContain("org:sys_profile:delete");
    expect(isCreatorEligible(store, state.roles[0]!)).toBe(true);
    expect(isCreatorEligible(store, state.roles[1]!)).toBe(false);
  });

  it("a role's new key follows its members; the last member who can manage members keeps a role that can", () => {
    const store = storeWithDefaults();
    const perm = createPermission(store, { name: "Read", key: "org:docs:read" });
    const role = createRole(store, { name: "Reader", key: "org:reader", permissions: [perm.id] });
    const grace = store.membership("org_seed_engines", "user_seed_grace")!;
    changeRole(store, grace, "org:reader");
    updateRole(store, role, { key: "org:doc_reader" });
    expect(grace.role).toBe("org:doc_reader");
    expect(permissionKeysOf(store, grace.role)).toEqual(["org:docs:read"]);

    const ada = store.membership("org_seed_engines", "user_seed_ada")!;
    expect(() => changeRole(store, ada, "org:doc_reader")).toThrow(/minimum required permissions/);
    expect(ada.role).toBe("org:admin");
  });
});
