import { UNSAFE_ErrorResponseImpl as ErrorResponse } from "@remix-run/router";
import { describe, expect, it } from "vitest";
import { describeError } from "~/components/error-page";

describe("describeError: the error catalogue's wording", () => {
  it("404 says the page is not found and reveals nothing of the message it was thrown with", () => {
    const copy = describeError(new ErrorResponse(404, "Not Found", { message: "org_secret does not exist" }));
    expect(copy).toMatchObject({ status: 404, title: "Page not found", retry: false });
    expect(copy.message).not.toContain("org_secret");
  });

  it("403 shows the route's reason", () => {
    const copy = describeError(new ErrorResponse(403, "Forbidden", { message: "Only admins can invite people." }));
    expect(copy).toMatchObject({ status: 403, message: "Only admins can invite people.", retry: false });
  });

  it.each([
    [429, "Too many attempts"],
    [503, "Temporarily unavailable"],
  ])("%i offers Try again", (status, title) => {
    expect(describeError(new ErrorResponse(status, "", { message: "Wait a bit." }))).toMatchObject({
      status,
      title,
      message: "Wait a bit.",
      retry: true,
    });
  });

  it("500 apologises and shows the reference, never the error's text", () => {
    const copy = describeError(
      new ErrorResponse(500, "", { message: "TypeError: x is undefined", reference: "req-1234" }),
    );
    expect(copy).toMatchObject({ status: 500, reference: "req-1234", retry: true });
    expect(copy.message).not.toContain("TypeError");
  });

  it("a thrown Error (a render bug) is a 500 without details", () => {
    const copy = describeError(new Error("secret stack"));
    expect(copy).toMatchObject({ status: 500, retry: true });
    expect(JSON.stringify(copy)).not.toContain("secret");
  });

  it("a document that failed to render (Remix's stand-in error) shows the request's reference; a browser error does not", () => {
    expect(describeError(new Error("Unexpected Server Error"), "req-123").reference).toBe("req-123");
    expect(describeError(new Error("Cannot read properties of undefined"), "req-123").reference).toBeUndefined();
  });

  it("ignores an over-long or non-string message", () => {
    expect(describeError(new ErrorResponse(403, "", { message: "x".repeat(600) })).message).toMatch(/Ask an admin/);
    expect(describeError(new ErrorResponse(403, "", { message: 42 })).message).toMatch(/Ask an admin/);
  });
});
