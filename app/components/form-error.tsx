import * as Callout from "@radix-ui/themes/components/callout";

/** A message about the whole form (not one field), such as an upstream outage. */
export function FormError({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <Callout.Root color="red" role="alert" data-testid="form-error">
      <Callout.Text>{message}</Callout.Text>
    </Callout.Root>
  );
}
