// The video pack's requests and artifact contents as TypeScript types, from the OpenAPI
// document the service serves for it (GET /v1/packs/video/openapi.json).
import type { components } from "../generated/packs/video.js";
import type { ArtifactTypeOf, ContentOf, PackRequest, RequestKind, RequestOfKind } from "./pack-types.js";

type Schemas = components["schemas"];

/** Any request of the video pack: its kind chooses the body. */
export type Request = PackRequest<Schemas>;
export type Kind = RequestKind<Schemas>;
/** The body of one kind: `RequestOf<"handoff">`. */
export type RequestOf<K extends Kind> = RequestOfKind<Schemas, K>;

export type StartRequest = Schemas["VideoStartRequest"];
export type HandoffRequest = Schemas["VideoHandoffRequest"];
export type ReviewRequest = Schemas["VideoReviewRequest"];
export type ApprovalRequest = Schemas["VideoApprovalRequest"];
export type OutcomeRequest = Schemas["VideoOutcomeRequest"];
export type FailureRequest = Schemas["VideoFailureRequest"];
export type CancelRequest = Schemas["VideoCancelRequest"];
export type ResolutionRequest = Schemas["VideoResolutionRequest"];

/** The pack's artifact types. */
export type ArtifactType = ArtifactTypeOf<Schemas>;
/** The content of one artifact type: `Content<"REQUIREMENTS">`. */
export type Content<T extends ArtifactType> = ContentOf<Schemas, T>;
/** Every artifact type's content, by type. */
export type Contents = { [T in ArtifactType]: Content<T> };

/** Every schema of the pack's OpenAPI document, by component name. */
export type { Schemas };
