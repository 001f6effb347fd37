// Each shipped pack's request and artifact content types, one namespace per pack; also
// importable alone as @handoff/client/packs/PACK.
export type * as assessment from "./assessment.js";
export type * as campaign from "./campaign.js";
export type * as support from "./support.js";
export type * as video from "./video.js";
export type { ArtifactTypeOf, ContentOf, PackRequest, PackSchemasOf, RequestKind, RequestOfKind } from "./pack-types.js";
