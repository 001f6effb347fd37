package handoff_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff"
)

// The table answers each class of error one way, and an answer read back (what a
// client decodes) is each error of its class and none of another's.
func TestErrorAnswersBothWays(t *testing.T) {
	for i, a := range handoff.ErrorAnswers {
		for _, err := range a.Errs {
			got, ok := handoff.AnswerFor(fmt.Errorf("wrapped: %w", err))
			require.True(t, ok, "%v", err)
			assert.Equal(t, a.Error, got, "%v", err)
			back := &handoff.Error{Status: got.Status, Code: got.Code}
			assert.ErrorIs(t, back, err, "%s %d", got.Code, got.Status)
		}
		for j, other := range handoff.ErrorAnswers {
			if other.Code == a.Code && other.Status == a.Status {
				continue // NOT_FOUND stands for a workflow and a decision alike
			}
			for _, err := range other.Errs {
				assert.False(t, errors.Is(&a.Error, err), "answer %d (%s) is not %v of answer %d", i, a.Code, err, j)
			}
		}
	}
	_, ok := handoff.AnswerFor(errors.New("something else"))
	assert.False(t, ok, "an error no class names has no answer")
}
