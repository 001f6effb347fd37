// Package policy is the Rego side of a bundle: it compiles the policy tree with the
// engine's capabilities (no builtin that reaches outside the process or is not
// deterministic), prepares one query per pack entrypoint and the core one, and indexes
// the rules whose METADATA carries a reason code (Catalog, Reasons). A pack's query
// (Query) has the rules whose value is the same on every request of the pack folded
// into constants; UnfoldedQuery is the same query over the rules as written, for
// explanations, which trace them.
//
// The contract tables reach the policies as data through Tables; the package knows no
// CUE. Policies is safe for concurrent use: a group compiled lazily is compiled once,
// by the first query that needs it.
package policy
