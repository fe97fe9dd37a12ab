import type { ReactNode } from "react";

type MenuFallbackProps = {
  /** The trigger's accessible name. */
  label: string;
  trigger: ReactNode;
  heading: string;
  testId: string;
  children: ReactNode;
};

/**
 * A menu before hydration or without JavaScript: a disclosure whose panel
 * holds plain links and real forms. The JavaScript menus replace it once the
 * page has hydrated.
 */
export function MenuFallback({ label, trigger, heading, testId, children }: MenuFallbackProps) {
  return (
    <details className="menu-fallback" data-testid={testId}>
      <summary className="menu-fallback-trigger" aria-label={label} title={label}>
        {trigger}
      </summary>
      <div className="menu-fallback-panel">
        <p className="menu-fallback-heading">{heading}</p>
        {children}
      </div>
    </details>
  );
}
