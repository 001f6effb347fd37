package handoff

// VerifyReport is the result of walking a hash chain.
type VerifyReport struct {
	Tenant   string `json:"tenant"`
	Workflow string `json:"workflow"` // "" for an audit stream

	// Records is the number of records verified before the first problem
	// (all of them when OK).
	Records uint64 `json:"records"`

	OK bool `json:"ok"` // the chain and its head are intact

	// BrokenSeq is the seq of the first broken or missing record; 0 when
	// OK, or when the problem is not in a record (a missing head, a wrong
	// owner index).
	BrokenSeq uint64 `json:"broken_seq"`

	Problem string `json:"problem"` // what is wrong; "" when OK
}
