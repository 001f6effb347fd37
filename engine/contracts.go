package engine

import (
	"github.com/handoff-dev/handoff/engine/internal/contract"

	"github.com/handoff-dev/handoff"
)

// ContractError is a CUE contract that does not load, compile or validate: its message
// is every CUE error with its positions, and Errs the same errors one by one, each at
// its first position.
type ContractError = contract.ContractError

// PositionError is an error at a place in a bundle: File is named as in a bundle laid
// out as the repository is (contracts/..., policies/...).
type PositionError = contract.PositionError

// ValidationError is handoff.ValidationError.
type ValidationError = handoff.ValidationError
