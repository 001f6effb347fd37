// Package scan walks a request once for what policies cannot compute well in Rego: the
// forbidden content (secrets, credentials, raw logs) and injection in every string and
// key (Scanner, compiled from the core table guardrails), every artifact reference
// (Refs) and scope field (Scopes) the request holds, the wrapping of context packages as
// untrusted data (WrapValues), and the redacted copy of a request the log records
// (RedactionTable, Redact, Scrub).
//
// It knows no pack and links neither the store nor the policy engine. Everything here is
// safe for concurrent use once built.
package scan
