import { json } from "@remix-run/node";

export function isFormRequest(request: Request): boolean {
  const type = request.headers.get("Content-Type") ?? "";
  return type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data");
}

/**
 * A form submission's fields, or a 400 the person can read: for requests that
 * are not a form at all (JSON, binary, broken multipart) or cannot be parsed.
 */
export async function readFormData(request: Request): Promise<FormData> {
  try {
    if (isFormRequest(request)) return await request.formData();
  } catch {
    // fall through to the 400
  }
  throw json({ message: "This form could not be read. Please go back and send it again." }, { status: 400 });
}

/** A text field's value, or "" when it is missing or a file. */
export function textField(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}
