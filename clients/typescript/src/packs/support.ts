// The support pack's requests and artifact contents as TypeScript types, from the OpenAPI
// document the service serves for it (GET /v1/packs/support/openapi.json).
import type { components } from "../generated/packs/support.js";
import type { ArtifactTypeOf, ContentOf, PackRequest, RequestKind, RequestOfKind } from "./pack-types.js";

type Schemas = components["schemas"];

/** Any request of the support pack: its kind chooses the body. */
export type Request = PackRequest<Schemas>;
export type Kind = RequestKind<Schemas>;
/** The body of one kind: `RequestOf<"handoff">`. */
export type RequestOf<K extends Kind> = RequestOfKind<Schemas, K>;

export type StartRequest = Schemas["SupportStartRequest"];
export type HandoffRequest = Schemas["SupportHandoffRequest"];
export type ReviewRequest = Schemas["SupportReviewRequest"];
export type ApprovalRequest = Schemas["SupportApprovalRequest"];
export type OutcomeRequest = Schemas["SupportOutcomeRequest"];
export type FailureRequest = Schemas["SupportFailureRequest"];
export type CancelRequest = Schemas["SupportCancelRequest"];
export type ResolutionRequest = Schemas["SupportResolutionRequest"];

/** The pack's artifact types. */
export type ArtifactType = ArtifactTypeOf<Schemas>;
/** The content of one artifact type: `Content<"CUSTOMER_RESPONSE">`. */
export type Content<T extends ArtifactType> = ContentOf<Schemas, T>;
/** Every artifact type's content, by type. */
export type Contents = { [T in ArtifactType]: Content<T> };

/** Every schema of the pack's OpenAPI document, by component name. */
export type { Schemas };
