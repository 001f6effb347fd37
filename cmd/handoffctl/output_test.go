package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCount(t *testing.T) {
	assert.Equal(t, "1 record", count(1, "record"))
	assert.Equal(t, "0 records", count(0, "record"))
	assert.Equal(t, "2 idempotency keys", count(2, "idempotency key"))
	assert.Equal(t, "3 policies", count(uint64(3), "policy"))
	assert.Equal(t, "2 matches", count(int64(2), "match"))
	assert.Equal(t, "1 table file", count(1, "table file"))
	assert.Equal(t, "4 problems", count(4, "problem"))
}
