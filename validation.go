package handoff

// ValidationError is one contract violation found in a request, handed to the policy as
// input.validation.errors. Code is a reason code (SCHEMA_INVALID, UNKNOWN_FIELD, ...).
type ValidationError struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
}
