import type { Locator, Page } from "@playwright/test";
import { confirmInClerkForm, expect } from "./fixtures";

/** Clerk's <OrganizationProfile/>, as the app's Settings page shows it. */
export const profileOf = (page: Page) => page.locator(".cl-organizationProfile-root");

/** The Settings page, once Clerk's component has rendered the organization's General section. */
export async function openSettings(page: Page, slug: string) {
  await page.goto(`/orgs/${slug}/settings`);
  const profile = profileOf(page);
  await expect(profile.getByRole("heading", { name: "General" })).toBeVisible({ timeout: 15_000 });
  return profile;
}

/**
 * Types into a field of the profile form and saves, until clerk-js sends the
 * organization's update (a POST with `_method=PATCH`; see confirmInClerkForm).
 */
export const saveInClerkForm = (page: Page, orgId: string, field: Locator, text: string) =>
  confirmInClerkForm(page, {
    field,
    text,
    submit: profileOf(page).getByRole("button", { name: "Save" }),
    isRequest: (r) => new URL(r.url()).pathname.endsWith(`/v1/organizations/${orgId}`) && r.method() !== "GET",
  });
