// The assessment pack's requests and artifact contents as TypeScript types, from the OpenAPI
// document the service serves for it (GET /v1/packs/assessment/openapi.json).
import type { components } from "../generated/packs/assessment.js";
import type { ArtifactTypeOf, ContentOf, PackRequest, RequestKind, RequestOfKind } from "./pack-types.js";

type Schemas = components["schemas"];

/** Any request of the assessment pack: its kind chooses the body. */
export type Request = PackRequest<Schemas>;
export type Kind = RequestKind<Schemas>;
/** The body of one kind: `RequestOf<"handoff">`. */
export type RequestOf<K extends Kind> = RequestOfKind<Schemas, K>;

export type StartRequest = Schemas["AssessmentStartRequest"];
export type HandoffRequest = Schemas["AssessmentHandoffRequest"];
export type ReviewRequest = Schemas["AssessmentReviewRequest"];
export type ApprovalRequest = Schemas["AssessmentApprovalRequest"];
export type OutcomeRequest = Schemas["AssessmentOutcomeRequest"];
export type FailureRequest = Schemas["AssessmentFailureRequest"];
export type CancelRequest = Schemas["AssessmentCancelRequest"];
export type ResolutionRequest = Schemas["AssessmentResolutionRequest"];

/** The pack's artifact types. */
export type ArtifactType = ArtifactTypeOf<Schemas>;
/** The content of one artifact type: `Content<"ASSESSMENT_REPORT">`. */
export type Content<T extends ArtifactType> = ContentOf<Schemas, T>;
/** Every artifact type's content, by type. */
export type Contents = { [T in ArtifactType]: Content<T> };

/** Every schema of the pack's OpenAPI document, by component name. */
export type { Schemas };
