import { deletedJSON } from "../json";
import {
  createJwtTemplate,
  deleteJwtTemplate,
  jwtTemplate,
  jwtTemplateJSON,
  jwtTemplates,
  updateJwtTemplate,
} from "../domain/jwt-templates";
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
  route("POST", "/v1/jwt_templates", (req) => jwtTemplateJSON(createJwtTemplate(store, bodyOf(req.body))));
  route("GET", "/v1/jwt_templates/:id", (req) => jwtTemplateJSON(jwtTemplate(store, String(req.params.id))));
  route("PATCH", "/v1/jwt_templates/:id", (req) =>
    jwtTemplateJSON(updateJwtTemplate(store, String(req.params.id), bodyOf(req.body))),
  );
  route("DELETE", "/v1/jwt_templates/:id", (req) => {
    const template = deleteJwtTemplate(store, String(req.params.id));
    return deletedJSON("jwt_template", template.id);
  });
}
