/**
 * Clerk's error envelope. The domain throws it when a rule refuses a change
 * (a taken identifier, a wrong code, a missing record); the APIs' registrar
 * (http/routing.ts) answers with it as Clerk's JSON.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly paramName?: string,
    /** Clerk's `long_message`, where it differs from the short one. */
    readonly longMessage?: string,
    /** The envelope's own `meta` (the Frontend API puts the browser's client there: clerk-js reads `meta.client`). */
    readonly meta: Record<string, unknown> = {},
    /** The error's own `meta`, beside `param_name` (`session_id` for `identifier_already_signed_in`). */
    readonly errorMeta: Record<string, unknown> = {},
  ) {
    super(message);
  }
  toJSON() {
    return {
      errors: [
        {
          code: this.code,
          message: this.message,
          long_message: this.longMessage ?? this.message,
          meta: { ...(this.paramName ? { param_name: this.paramName } : {}), ...this.errorMeta },
        },
      ],
      meta: this.meta,
      clerk_trace_id: "emulator",
    };
  }
}

/** Clerk's 422 for a value a parameter does not take (an `order_by`, a `level`, a `strategy`…). */
export function valueNotAllowed(param: string, value: string): ApiError {
  return new ApiError(
    422,
    "form_param_value_invalid",
    "is invalid",
    param,
    `${value} does not match one of the allowed values for parameter ${param}`,
  );
}

/** Clerk's 422 for a `strategy` the instance or the endpoint does not take. */
export const strategyNotAllowed = (strategy: string): ApiError => valueNotAllowed("strategy", strategy);
