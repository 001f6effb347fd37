// The names every pack's types are read under, from the components of the pack's
// generated OpenAPI types (src/generated/packs/PACK.ts).

/** The schemas of one pack's OpenAPI document, as openapi-typescript writes them. */
export interface PackSchemasOf {
  PackRequest: { kind: string };
}

/** Any request of the pack: a union chosen by kind. */
export type PackRequest<S extends PackSchemasOf> = S["PackRequest"];

/** The request kinds of the pack (start, handoff, review, ...). */
export type RequestKind<S extends PackSchemasOf> = PackRequest<S>["kind"];

/** The body of one request kind. */
export type RequestOfKind<S extends PackSchemasOf, K extends RequestKind<S>> = Extract<PackRequest<S>, { kind: K }>;

// A handoff's output is the pack's Output narrowed by its type: one branch per artifact type.
type HandoffOutput<S extends PackSchemasOf> = NonNullable<RequestOfKind<S, "handoff"> extends { output?: infer O } ? O : never>;

/** The pack's artifact types (CUSTOMER_RESPONSE, RESEARCH_BRIEF, ...). */
export type ArtifactTypeOf<S extends PackSchemasOf> = Extract<HandoffOutput<S> extends { type: infer T } ? T : never, keyof S & string>;

/** The content of one artifact type: the component of the same name, closed as its contract is. */
export type ContentOf<S extends PackSchemasOf, T extends ArtifactTypeOf<S>> = S[T];
