export function initials(name: string): string {
  const letters = name
    .split(/\s+/)
    // Words, not symbols: "Difference & Co" is DC.
    .filter((part) => /^[\p{L}\p{N}]/u.test(part))
    .slice(0, 2)
    .map((part) => [...part][0]?.toUpperCase() ?? "");
  return letters.join("") || "?";
}

type EntityAvatarProps = {
  name: string;
  imageUrl: string | null;
  /** Organizations get rounded squares, people circles. */
  shape?: "circle" | "square";
  size?: "small" | "medium" | "large";
};

/**
 * A person's or an organization's picture, or their initials drawn from plain
 * markup, so that it shows before hydration and without JavaScript.
 */
export function EntityAvatar({ name, imageUrl, shape = "circle", size = "medium" }: EntityAvatarProps) {
  const className = `initials-avatar initials-avatar--${shape} initials-avatar--${size}`;
  if (imageUrl) return <img className={className} src={imageUrl} alt="" loading="lazy" decoding="async" />;
  // The initials are drawn by CSS (attr()), not written as text: they are a
  // picture of the name, and a control's visible text should be its name alone.
  return <span className={className} data-initials={initials(name)} aria-hidden="true" />;
}
