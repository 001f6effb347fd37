package contract

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSchemaFallsBackOnlyWhereItMust lists the parts of the runtime definitions the
// compiled schema leaves to CUE: only the assessment handoff's tools_used, whose
// elements depend on source_agent.
func TestSchemaFallsBackOnlyWhereItMust(t *testing.T) {
	cc, err := Compile(os.DirFS("../../../contracts"), false)
	require.NoError(t, err)
	var got []string
	collect := func(name string, s *schema) {
		var paths []string
		s.fallbacks("", &paths, map[*schema]bool{})
		for _, p := range paths {
			got = append(got, name+":"+p)
		}
	}
	collect("#PolicyResult", cc.Result.Compiled())
	for _, pn := range cc.PackNames() {
		p := compiledPack(t, cc, pn)
		for k, v := range p.Requests {
			collect(pn+"/request/"+k, v.Compiled())
		}
		for k, v := range p.Artifacts {
			collect(pn+"/artifact/"+k, v.Compiled())
		}
	}
	sort.Strings(got)
	require.Equal(t, []string{"assessment/request/handoff:tools_used[*]"}, got)
}

// fallbacks lists the paths of the fallback nodes under s.
func (s *schema) fallbacks(path string, out *[]string, seen map[*schema]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	if s.fallback {
		*out = append(*out, path)
		return
	}
	for k, f := range s.fields {
		f.s.fallbacks(joinPath(path, k), out, seen)
	}
	for _, p := range s.patterns {
		p.value.fallbacks(path+"[pattern]", out, seen)
	}
	for i, e := range s.prefix {
		e.fallbacks(fmt.Sprintf("%s[%d]", path, i), out, seen)
	}
	s.rest.fallbacks(path+"[*]", out, seen)
	for i, a := range s.anyOf {
		a.fallbacks(fmt.Sprintf("%s|%d", path, i), out, seen)
	}
}

func compiledPack(t *testing.T, cc *Contracts, name string) *Pack {
	t.Helper()
	p, err := cc.Pack(name)
	require.NoError(t, err)
	require.NotNil(t, p, "pack %s", name)
	return p
}
