import { deletedJSON } from "../json";
import {
  createJwtTemplate,
  deleteJwtTemplate,
  jwtTemplate,
  jwtTemplateJSON,
  jwtTemplates,
  updateJwtTemplate,
} from "../domain/jwt-templates";
import type { BackendContext, Route } from "./context";
import { bodyOf, type BodyFields } from "./declarations";
import { pagedAnswer } from "./lists";

const JWT_TEMPLATE_FIELDS: BodyFields = {
  name: "kept",
  claims: "kept",
  lifetime: "kept",
  allowed_clock_skew: "kept",
  custom_signing_key: "kept",
  signing_algorithm: "kept",
  signing_key: "kept",
};

/** JWT templates: the instance's named token formats (`getToken({ template })` mints them). */
export function registerJwtTemplateRoutes(route: Route, { store }: BackendContext): void {
  // Oldest first, as the dashboard lists them.
  route("GET", "/v1/jwt_templates", { query: ["paginated", "limit", "offset"] }, (req) =>
    pagedAnswer(
      req,
      [...jwtTemplates(store)].sort((a, b) => a.createdAt - b.createdAt),
      jwtTemplateJSON,
    ),
  );
  route("POST", "/v1/jwt_templates", { body: JWT_TEMPLATE_FIELDS }, (req) =>
    jwtTemplateJSON(createJwtTemplate(store, bodyOf(req.body))),
  );
  route("GET", "/v1/jwt_templates/:id", { query: [] }, (req) =>
    jwtTemplateJSON(jwtTemplate(store, String(req.params.id))),
  );
  route("PATCH", "/v1/jwt_templates/:id", { body: JWT_TEMPLATE_FIELDS }, (req) =>
    jwtTemplateJSON(updateJwtTemplate(store, String(req.params.id), bodyOf(req.body))),
  );
  route("DELETE", "/v1/jwt_templates/:id", { body: {} }, (req) => {
    const template = deleteJwtTemplate(store, String(req.params.id));
    return deletedJSON("jwt_template", template.id);
  });
}
