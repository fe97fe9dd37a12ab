import { deletedJSON } from "../json";
import { jwtTemplate, jwtTemplateJSON, jwtTemplates, templateFromBody } from "../domain/jwt-templates";
import { bodyOf } from "./body-params";
import type { BackendContext, Route } from "./context";
import { pagedAnswer } from "./query-params";

/** JWT templates: the instance's named token formats (`getToken({ template })` mints them). */
export function registerJwtTemplateRoutes(route: Route, { store }: BackendContext): void {
  // Oldest first, as the dashboard lists them.
  route("GET", "/v1/jwt_templates", (req) =>
    pagedAnswer(
      req,
      [...jwtTemplates(store)].sort((a, b) => a.createdAt - b.createdAt),
      jwtTemplateJSON,
    ),
  );
  route("POST", "/v1/jwt_templates", (req) => {
    const template = templateFromBody(store, bodyOf(req.body), null);
    jwtTemplates(store).push(template);
    store.changed();
    return jwtTemplateJSON(template);
  });
  route("GET", "/v1/jwt_templates/:id", (req) => jwtTemplateJSON(jwtTemplate(store, String(req.params.id))));
  route("PATCH", "/v1/jwt_templates/:id", (req) => {
    const template = jwtTemplate(store, String(req.params.id));
    Object.assign(template, templateFromBody(store, bodyOf(req.body), template));
    store.changed();
    return jwtTemplateJSON(template);
  });
  route("DELETE", "/v1/jwt_templates/:id", (req) => {
    const template = jwtTemplate(store, String(req.params.id));
    store.state.jwtTemplates = jwtTemplates(store).filter((t) => t !== template);
    store.changed();
    return deletedJSON("jwt_template", template.id);
  });
}
