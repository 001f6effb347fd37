package bundle

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/stretchr/testify/assert"
)

func TestRowRanges(t *testing.T) {
	r := func(from, to int) cover.Range {
		return cover.Range{Start: cover.Position{Row: from}, End: cover.Position{Row: to}}
	}
	tests := []struct {
		name   string
		ranges []cover.Range
		want   []string
	}{
		{"none", nil, nil},
		{"one row", []cover.Range{r(3, 3)}, []string{"3"}},
		{"duplicates", []cover.Range{r(5, 5), r(5, 5)}, []string{"5"}},
		{"adjacent rows", []cover.Range{r(12, 12), r(13, 13), r(14, 14)}, []string{"12-14"}},
		{"overlapping ranges", []cover.Range{r(4, 8), r(6, 10)}, []string{"4-10"}},
		{"range inside another", []cover.Range{r(4, 10), r(5, 6)}, []string{"4-10"}},
		{"adjacent ranges", []cover.Range{r(4, 6), r(7, 9)}, []string{"4-9"}},
		{"gaps kept", []cover.Range{r(1, 1), r(3, 4), r(6, 6)}, []string{"1", "3-4", "6"}},
		{"out of order", []cover.Range{r(9, 9), r(2, 3), r(4, 4), r(7, 7)}, []string{"2-4", "7", "9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, rowRanges(tt.ranges))
		})
	}
}
