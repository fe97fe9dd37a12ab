/** For pages that only a signed-in person sees: search engines are not to list them. */
export const NOT_INDEXED = { name: "robots", content: "noindex" } as const;
