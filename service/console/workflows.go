package console

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// filterError is a filter of the query string the console cannot read: said to the
// person as it is, with a 400.
type filterError struct{ msg string }

func (e *filterError) Error() string { return e.msg }

func badFilter(format string, args ...any) error {
	return &filterError{msg: fmt.Sprintf(format, args...)}
}

var (
	// idRE is core.#ID, the shape of an agent's id.
	idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$`)
	// codeRE is the shape of a reason code.
	codeRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,127}$`)
)

// dateLayout is how the form's dates are written (an <input type="date">), read in UTC.
const dateLayout = "2006-01-02"

// maxSearch bounds the search text: an id or subject is at most 128 characters.
const maxSearch = 128

// catalog is what the filters offer: the bundle's packs, their statuses and agents, and
// the reason codes their rules give.
type catalog struct {
	Packs    []option
	Statuses []string
	Agents   []option
	Reasons  []option
}

// option is one choice of a select: its value and its words.
type option struct{ Value, Label string }

// readCatalog reads the filters' choices from a bundle, titled by its titles.
func (c *Console) readCatalog(dc *engine.Decider, titles titles) catalog {
	var cat catalog
	agents := map[string]string{}
	for _, info := range dc.Packs() {
		cat.Packs = append(cat.Packs, option{Value: info.Name, Label: info.Name})
		pk, ok := c.packOf(info.Name)
		if !ok {
			continue
		}
		cat.Statuses = append(cat.Statuses, pk.statuses...)
		for id, a := range pk.agents {
			name, _ := a.(map[string]any)["name"].(string)
			if name == "" {
				name = words(id)
			}
			agents[id] = name
		}
	}
	slices.Sort(cat.Statuses)
	cat.Statuses = slices.Compact(cat.Statuses)
	for _, id := range slices.Sorted(maps.Keys(agents)) {
		cat.Agents = append(cat.Agents, option{Value: id, Label: agents[id] + " (" + id + ")"})
	}
	codes := map[string]bool{}
	for _, r := range dc.Reasons() {
		codes[r.Code] = true
	}
	for _, code := range slices.Sorted(maps.Keys(codes)) {
		cat.Reasons = append(cat.Reasons, option{Value: code, Label: titles.of("", engine.Reason{Code: code})})
	}
	return cat
}

// with is the catalog with the agent f asks for among its agents, when the bundle does
// not name it (a producer of an older workflow): the form keeps it selected.
func (cat catalog) with(f filters) catalog {
	if f.Agent == "" || slices.ContainsFunc(cat.Agents, func(o option) bool { return o.Value == f.Agent }) {
		return cat
	}
	cat.Agents = append(slices.Clip(cat.Agents), option{Value: f.Agent, Label: f.Agent})
	return cat
}

// filters are a page's query string as the form shows it back, and the query it asks.
type filters struct {
	Search, Pack, Status, Waiting, Agent, Reason, Since, Until string
	Limit                                                      string
	Cursor                                                     string
	query                                                      engine.WorkflowQuery
}

// readFilters reads the workflows page's query string. Every value is checked: a pack or
// status the bundle does not have, a waiting that is not me/anyone/nobody, a malformed
// date or page size is an error that says which; the cursor is checked by the engine.
func (c *Console) readFilters(v url.Values, p Person, cat catalog) (filters, error) {
	f := filters{Search: v.Get("q"), Pack: v.Get("pack"), Status: v.Get("status"), Waiting: v.Get("waiting"),
		Agent: v.Get("agent"), Reason: v.Get("reason"), Since: v.Get("since"), Until: v.Get("until"),
		Limit: v.Get("limit"), Cursor: v.Get("cursor")}
	q := engine.WorkflowQuery{Search: f.Search, Pack: f.Pack, Status: f.Status, Agent: f.Agent, Reason: f.Reason, Cursor: f.Cursor}
	switch {
	case len(f.Search) > maxSearch:
		return f, badFilter("The search is longer than %d characters: no workflow id or subject is that long.", maxSearch)
	case f.Pack != "" && !slices.ContainsFunc(cat.Packs, func(o option) bool { return o.Value == f.Pack }):
		return f, badFilter("There is no pack %q in the bundle.", f.Pack)
	case f.Status != "" && !slices.Contains(cat.Statuses, f.Status):
		return f, badFilter("No pack of the bundle has a status %q.", f.Status)
	case f.Agent != "" && !idRE.MatchString(f.Agent):
		return f, badFilter("%q is not an agent's id.", f.Agent)
	case f.Reason != "" && !codeRE.MatchString(f.Reason):
		return f, badFilter("%q is not a reason code: codes are capitals, digits and underscores.", f.Reason)
	}
	switch f.Waiting {
	case "":
	case engine.WaitingMe:
		q.Waiting, q.Roles = engine.WaitingMe, p.Roles
	case engine.WaitingAnyone, engine.WaitingNobody:
		q.Waiting = f.Waiting
	default:
		return f, badFilter("Waiting %q is none of: for me, for anyone, for nobody.", f.Waiting)
	}
	var err error
	if q.Since, err = readDate("since", f.Since); err != nil {
		return f, err
	}
	if q.Until, err = readDate("until", f.Until); err != nil {
		return f, err
	}
	if !q.Until.IsZero() {
		q.Until = q.Until.AddDate(0, 0, 1) // the until day is included
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return f, badFilter("The since date %s is after the until date %s.", f.Since, f.Until)
	}
	if q.Limit, err = readLimit(f.Limit); err != nil {
		return f, err
	}
	f.query = q
	return f, nil
}

// readDate reads a date of the form, in UTC; "" is no bound.
func readDate(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(dateLayout, s, time.UTC)
	if err != nil {
		return time.Time{}, badFilter("The %s date %q is not a date written YYYY-MM-DD.", name, s)
	}
	return t, nil
}

// readLimit reads a page size; "" is the engine's default.
func readLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > engine.MaxPageSize || strconv.Itoa(n) != s {
		return 0, badFilter("The page size %q is not a number from 1 to %d.", s, engine.MaxPageSize)
	}
	return n, nil
}

// values are the filters as a query string, without the cursor.
func (f filters) values() url.Values {
	v := url.Values{}
	for _, kv := range [][2]string{{"q", f.Search}, {"pack", f.Pack}, {"status", f.Status}, {"waiting", f.Waiting},
		{"agent", f.Agent}, {"reason", f.Reason}, {"since", f.Since}, {"until", f.Until}, {"limit", f.Limit}} {
		if kv[1] != "" {
			v.Set(kv[0], kv[1])
		}
	}
	return v
}

// here are the filters and the cursor as a query string: the page itself.
func (f filters) here() url.Values {
	v := f.values()
	if f.Cursor != "" {
		v.Set("cursor", f.Cursor)
	}
	return v
}

// paging are the links from one page to the next and back to the first, filters kept.
type paging struct {
	Next, First string // "" when there is no such page to go to
}

func pagingOf(path string, f filters, next string) paging {
	var p paging
	v := f.values()
	if f.Cursor != "" {
		p.First = path + queryString(v)
	}
	if next != "" {
		v.Set("cursor", next)
		p.Next = path + queryString(v)
	}
	return p
}

func queryString(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// workflowItem is one row of the workflows page.
type workflowItem struct {
	engine.WorkflowRow
	Standing string          // where the workflow stands, in words
	Waiting  []string        // the roles that may act now, by their names
	Titled   []engine.Reason // the latest decision's reasons, titled
	When     string          // the latest activity, to the minute, UTC
	WhenISO  string          // the same, exact, for <time datetime>
}

// standingWords says where a workflow stands, as a person would.
func standingWords(row engine.WorkflowRow) string {
	switch {
	case row.Standing == engine.AwaitHuman:
		return "Waits for a person"
	case row.Terminal:
		return "Finished"
	case row.Standing == engine.Allow:
		return "In progress"
	case row.Standing == engine.Revise:
		return "Sent back for revision"
	case row.Standing == engine.Retry:
		return "To be retried"
	case row.Standing == engine.Fail:
		return "Failed"
	}
	return "Every request refused"
}

// items turns a page's rows into what the page shows of them.
func (c *Console) items(rows []engine.WorkflowRow) []workflowItem {
	packs := map[string]*pack{}
	out := make([]workflowItem, 0, len(rows))
	for _, row := range rows {
		pk, seen := packs[row.Pack]
		if !seen {
			pk, _ = c.packOf(row.Pack)
			packs[row.Pack] = pk
		}
		it := workflowItem{WorkflowRow: row, Standing: standingWords(row),
			When: row.Active.UTC().Format("2006-01-02 15:04 UTC"), WhenISO: row.Active.UTC().Format(time.RFC3339)}
		for _, r := range row.Roles {
			name := words(r)
			if pk != nil && pk.roles[r].Name != "" {
				name = pk.roles[r].Name
			}
			it.Waiting = append(it.Waiting, name)
		}
		for _, code := range row.Reasons {
			reason := engine.Reason{Code: code}
			reason.Title = c.titles().of(row.Pack, reason)
			it.Titled = append(it.Titled, reason)
		}
		out = append(out, it)
	}
	return out
}

// workflows lists every workflow of the person's tenant that the filters select, a page
// at a time.
func (c *Console) workflows(w http.ResponseWriter, r *http.Request, ss *session) {
	cat := c.catalog()
	f, err := c.readFilters(r.URL.Query(), ss.person, cat)
	var page engine.WorkflowPage
	if err == nil {
		page, err = c.e.FindWorkflows(r.Context(), ss.person.Tenant, f.query)
	}
	if err != nil {
		c.queryError(w, r, ss, err, "workflows.html", map[string]any{"PageTitle": "Workflows", "F": f, "Catalog": cat.with(f)})
		return
	}
	data := map[string]any{"PageTitle": "Workflows", "F": f, "Catalog": cat.with(f), "Items": c.items(page.Rows), "Paging": pagingOf("/console/workflows", f, page.Next)}
	c.withUnread(r, ss, data)
	c.render(w, r, http.StatusOK, "workflows.html", c.base(ss, data))
}

// queryError answers a page whose query could not be read: a filter or cursor of the
// query string is the request's fault, shown on the page with its form and a 400; the
// store's errors are said as storeError says them.
func (c *Console) queryError(w http.ResponseWriter, r *http.Request, ss *session, err error, page string, data map[string]any) {
	var fe *filterError
	msg := ""
	switch {
	case errors.As(err, &fe):
		msg = fe.msg
	case errors.Is(err, engine.ErrBadCursor):
		msg = "The page link is not one this console made (its cursor cannot be read): start again from the first page."
	default:
		c.storeError(w, r, ss, err)
		return
	}
	data["Error"] = msg
	if f, ok := data["F"].(filters); ok && fe == nil {
		data["Paging"] = paging{First: r.URL.Path + queryString(f.values())}
	}
	c.withUnread(r, ss, data)
	c.render(w, r, http.StatusBadRequest, page, c.base(ss, data))
}
