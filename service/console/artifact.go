package console

import (
	"net/http"
	"slices"
	"sort"
	"strconv"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// versionView is one recorded version of an artifact as a person reads it: what the
// state keeps of it, its content field by field, and the defects open against its
// type.
type versionView struct {
	Workflow string
	Type     string
	Version  *engine.ArtifactVersion
	Fields   []field
	Defects  []engine.Defect
	Decided  bool // the gate's form cites it: the person decides on it now
}

// readVersion is the view of version n of the artifact typ in st; nil when the
// workflow has no such version.
func (c *Console) readVersion(st *engine.State, typ string, n int) *versionView {
	h := st.Artifacts[typ]
	if h == nil {
		return nil
	}
	av := h.Versions[strconv.Itoa(n)]
	if av == nil {
		return nil
	}
	v := &versionView{Workflow: st.WorkflowID, Type: typ, Version: av, Fields: contentFields(av.Content, c.contentSchema(st.Pack, typ))}
	ids := make([]string, 0, len(st.Defects))
	for id, d := range st.Defects {
		if d.Status == "open" && (d.Defect.Artifact == typ || d.Defect.Origin == typ) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		v.Defects = append(v.Defects, st.Defects[id].Defect)
	}
	return v
}

// contentSchema is the JSON Schema the pack's contract gives the content of typ; an
// empty schema, which labels nothing, when the pack has none.
func (c *Console) contentSchema(pack, typ string) schema {
	ps, err := c.e.Decider().Schemas(pack)
	if err != nil {
		return schema{}
	}
	return newSchema(ps.Artifacts[typ])
}

// artifact shows one version of an artifact of a workflow of the person's tenant: a
// version the workflow does not have is not found, as a workflow of another tenant is.
func (c *Console) artifact(w http.ResponseWriter, r *http.Request, ss *session) {
	st, err := c.e.State(r.Context(), ss.person.Tenant, r.PathValue("workflow"))
	if err != nil {
		c.storeError(w, r, ss, err)
		return
	}
	typ := r.PathValue("type")
	n, err := strconv.Atoi(r.PathValue("version"))
	var v *versionView
	if err == nil {
		v = c.readVersion(st, typ, n)
	}
	if v == nil {
		c.storeError(w, r, ss, store.ErrNotFound)
		return
	}
	var versions []int
	for k := range st.Artifacts[typ].Versions {
		if m, err := strconv.Atoi(k); err == nil {
			versions = append(versions, m)
		}
	}
	slices.Sort(versions)
	previous := 0
	if i := slices.Index(versions, n); i > 0 {
		previous = versions[i-1]
	}
	c.render(w, r, http.StatusOK, "artifact.html", c.base(ss, map[string]any{
		"V": v, "Versions": versions, "Previous": previous, "PageTitle": typ + " v" + strconv.Itoa(n)}))
}

// artifactHistory lists every version of one artifact type of a workflow of the
// person's tenant, oldest first: a type the workflow never recorded is not found.
func (c *Console) artifactHistory(w http.ResponseWriter, r *http.Request, ss *session) {
	st, err := c.e.State(r.Context(), ss.person.Tenant, r.PathValue("workflow"))
	if err != nil {
		c.storeError(w, r, ss, err)
		return
	}
	typ := r.PathValue("type")
	rows := versionRows(st, typ)
	if len(rows) == 0 {
		c.storeError(w, r, ss, store.ErrNotFound)
		return
	}
	c.render(w, r, http.StatusOK, "history.html", c.base(ss, map[string]any{
		"Workflow": st.WorkflowID, "Type": typ, "Rows": rows, "PageTitle": typ + ": every version"}))
}
