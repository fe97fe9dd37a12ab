import { Flex, Text } from "~/components/ui";
import * as TextField from "@radix-ui/themes/components/text-field";
import type { ComponentProps } from "react";

type FormFieldProps = {
  label: string;
  name: string;
  error?: string;
  hint?: string;
} & Omit<ComponentProps<typeof TextField.Root>, "name">;

/** A labelled text input with its hint and its error message tied to it for screen readers. */
export function FormField({ label, name, error, hint, ...input }: FormFieldProps) {
  const id = `field-${name}`;
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <Flex direction="column" gap="1">
      <Text as="label" htmlFor={id} size="2" weight="medium">
        {label}
      </Text>
      <TextField.Root
        id={id}
        name={name}
        size="3"
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        color={error ? "red" : undefined}
        {...input}
      />
      {hint ? (
        <Text id={`${id}-hint`} size="1" color="gray">
          {hint}
        </Text>
      ) : null}
      {error ? (
        <Text id={`${id}-error`} size="2" color="red" role="alert" data-testid={`${name}-error`}>
          {error}
        </Text>
      ) : null}
    </Flex>
  );
}
