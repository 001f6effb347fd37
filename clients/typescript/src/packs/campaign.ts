// The campaign pack's requests and artifact contents as TypeScript types, from the OpenAPI
// document the service serves for it (GET /v1/packs/campaign/openapi.json).
import type { components } from "../generated/packs/campaign.js";
import type { ArtifactTypeOf, ContentOf, PackRequest, RequestKind, RequestOfKind } from "./pack-types.js";

type Schemas = components["schemas"];

/** Any request of the campaign pack: its kind chooses the body. */
export type Request = PackRequest<Schemas>;
export type Kind = RequestKind<Schemas>;
/** The body of one kind: `RequestOf<"handoff">`. */
export type RequestOf<K extends Kind> = RequestOfKind<Schemas, K>;

export type StartRequest = Schemas["CampaignStartRequest"];
export type HandoffRequest = Schemas["CampaignHandoffRequest"];
export type ReviewRequest = Schemas["CampaignReviewRequest"];
export type ApprovalRequest = Schemas["CampaignApprovalRequest"];
export type OutcomeRequest = Schemas["CampaignOutcomeRequest"];
export type FailureRequest = Schemas["CampaignFailureRequest"];
export type CancelRequest = Schemas["CampaignCancelRequest"];
export type ResolutionRequest = Schemas["CampaignResolutionRequest"];

/** The pack's artifact types. */
export type ArtifactType = ArtifactTypeOf<Schemas>;
/** The content of one artifact type: `Content<"RESEARCH_BRIEF">`. */
export type Content<T extends ArtifactType> = ContentOf<Schemas, T>;
/** Every artifact type's content, by type. */
export type Contents = { [T in ArtifactType]: Content<T> };

/** Every schema of the pack's OpenAPI document, by component name. */
export type { Schemas };
