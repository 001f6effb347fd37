package testsize

import (
	"slices"
	"testing"
)

func TestSample(t *testing.T) {
	t.Setenv(Env, "")
	all := []int{0, 1, 2, 3, 4, 5, 6}
	if got := Sample(all, 3); !slices.Equal(got, []int{0, 3, 6}) {
		t.Errorf("stride 3: %v", got)
	}
	if got := Sample(all, 1); !slices.Equal(got, all) {
		t.Errorf("stride 1: %v", got)
	}
	if got := Pick(10, 2); got != 2 {
		t.Errorf("Pick small: %d", got)
	}
	t.Setenv(Env, "1")
	if got := Sample(all, 3); !slices.Equal(got, all) {
		t.Errorf("full: %v", got)
	}
	if got := Pick(10, 2); got != 10 {
		t.Errorf("Pick full: %d", got)
	}
}
