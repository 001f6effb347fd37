package console

import (
	"sync/atomic"

	"github.com/handoff-dev/handoff/engine"
)

// bundleView is what the pages read of one bundle (its reasons' titles, the filters'
// choices), made once per bundle: a server that reloads or promotes a bundle shows the
// new one's from its next page on.
type bundleView struct {
	decider *engine.Decider
	titles  titles
	catalog catalog
}

// bundleViews keeps the view of the bundle the engine decides with now.
type bundleViews struct{ cur atomic.Pointer[bundleView] }

// view returns the view of the engine's live bundle, made when the bundle changed.
func (c *Console) view() *bundleView {
	dc := c.e.Decider()
	if v := c.views.cur.Load(); v != nil && v.decider == dc {
		return v
	}
	v := &bundleView{decider: dc, titles: newTitles(dc.Reasons())}
	v.catalog = c.readCatalog(dc, v.titles)
	c.views.cur.Store(v)
	return v
}

// titles are the live bundle's reasons' titles, by pack.
func (c *Console) titles() titles { return c.view().titles }

// catalog is what the live bundle's filters offer.
func (c *Console) catalog() catalog { return c.view().catalog }
