package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// meter measures one mode: latencies, wall and CPU time, allocations and peak RSS.
type meter struct {
	mode      Mode
	lat       []time.Duration
	n         atomic.Int64
	total     int
	bad       atomic.Int64
	skipped   atomic.Int64 // steps not played
	errs      atomic.Int64
	firstErr  atomic.Pointer[error]
	wall      time.Duration
	cpu       time.Duration
	noCPU     bool // a CPU time reading was unavailable
	allocs    uint64
	peakReset bool // the peak RSS was reset when the mode started
	startWall time.Time
	startCPU  time.Duration
	startAll  uint64
	// The CPU time of the PostgreSQL server processes on this machine, in the postgres
	// mode: dbOK is false when it cannot be read.
	db, startDB time.Duration
	dbOK        bool
	progress    *progress
	heap        *halfwayProfile
}

func (r *run) newMeter(mode Mode, total int) *meter {
	m := &meter{mode: mode, lat: make([]time.Duration, total), total: total, progress: r.prog, heap: r.heap, dbOK: mode == Postgres}
	runtime.GC()
	debug.FreeOSMemory()
	m.peakReset = resetPeakRSS()
	r.prog.start(mode.title(), total, &m.n)
	return m
}

func (m *meter) resume() {
	var ok bool
	m.startWall, m.startAll = time.Now(), heapAllocs()
	m.startCPU, ok = cpuTime()
	m.noCPU = m.noCPU || !ok
	if m.dbOK {
		m.startDB, m.dbOK = postgresCPU()
	}
}

func (m *meter) pause() {
	m.wall += time.Since(m.startWall)
	cpu, ok := cpuTime()
	m.noCPU = m.noCPU || !ok
	m.cpu += cpu - m.startCPU
	m.allocs += heapAllocs() - m.startAll
	if m.dbOK {
		db, ok := postgresCPU()
		m.db += db - m.startDB
		m.dbOK = ok
	}
}

func (m *meter) record(lat time.Duration, ok bool, err error) {
	i := m.n.Add(1) - 1
	if int(i) == m.total/2 {
		m.heap.write()
	}
	if int(i) < len(m.lat) {
		m.lat[i] = lat
	}
	if err != nil {
		m.errs.Add(1)
		m.firstErr.CompareAndSwap(nil, &err)
	} else if !ok {
		m.bad.Add(1)
	}
}

// unplayable counts n steps that could not be played as unexpected outcomes.
func (m *meter) unplayable(n int) {
	m.bad.Add(int64(n))
	m.skipped.Add(int64(n))
}

func (m *meter) result() ModeResult {
	m.progress.stop()
	n := int(m.n.Load())
	lat := slices.Clone(m.lat[:min(n, len(m.lat))])
	slices.Sort(lat)
	r := ModeResult{Mode: m.mode.title(), Decisions: n, Unexpected: int(m.bad.Load()),
		Errors: int(m.errs.Load()), Seconds: m.wall.Seconds()}
	if rss, ok := peakRSS(); ok {
		r.PeakRSSBytes = &rss
		r.PeakRSSSinceStart = !m.peakReset
	}
	if !m.noCPU {
		r.CPUPerDecisionus = new(float64)
	}
	if n > 0 {
		r.DecisionsPerSecond = float64(n) / m.wall.Seconds()
		r.P50ms = ms(lat[(len(lat)-1)/2])
		r.P99ms = ms(lat[(len(lat)-1)*99/100])
		r.Maxms = ms(lat[len(lat)-1])
		if r.CPUPerDecisionus != nil {
			*r.CPUPerDecisionus = float64(m.cpu.Microseconds()) / float64(n)
		}
		r.AllocsPerDecision = float64(m.allocs) / float64(n)
		if m.dbOK {
			r.DatabaseCPUPerDecisionus = new(float64)
			*r.DatabaseCPUPerDecisionus = float64(m.db.Microseconds()) / float64(n)
			r.DatabaseCPUSeconds = m.db.Seconds()
		}
	}
	return r
}

func (m *meter) err() error {
	if p := m.firstErr.Load(); p != nil {
		return fmt.Errorf("%s: %d decisions failed, the first: %w", m.mode.title(), m.errs.Load(), *p)
	}
	return nil
}

// halfwayProfile is the heap profile of a run, written once, by the first mode to
// reach half of its decisions.
type halfwayProfile struct {
	path string
	warn func(error)
	once sync.Once
}

// write writes the heap profile once, after a collection, so that it shows what is
// live. A failure is passed to Options.Warn and the run goes on.
func (h *halfwayProfile) write() {
	if h.path == "" {
		return
	}
	h.once.Do(func() {
		runtime.GC()
		f, err := os.Create(h.path)
		if err == nil {
			err = errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
		}
		if err != nil && h.warn != nil {
			h.warn(err)
		}
	})
}

var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}

// heapAllocs is the count of heap objects allocated so far.
func heapAllocs() uint64 {
	s := slices.Clone(allocSample)
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// parallel runs fn(i) for i in [0, n) on k goroutines.
func parallel(n, k int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(k, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// fsyncLatency measures the median time of writing 4 KiB to a file and syncing it.
func fsyncLatency(dir string) float64 {
	f, err := os.CreateTemp(dir, "fsync-")
	if err != nil {
		return 0
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	var lat []time.Duration
	for range 100 {
		t := time.Now()
		if _, err := f.Write(buf); err != nil {
			return 0
		}
		if err := f.Sync(); err != nil {
			return 0
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	return ms(lat[len(lat)/2])
}

// progress shows a mode's progress on its writer, rewriting one line; with no
// writer, nothing.
type progress struct {
	w    io.Writer
	done chan struct{}
	wg   sync.WaitGroup
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) start(name string, total int, n *atomic.Int64) {
	if p.w == nil {
		return
	}
	p.done = make(chan struct{})
	t0 := time.Now()
	p.wg.Go(func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				fmt.Fprint(p.w, "\r\033[K")
				return
			case <-tick.C:
				fmt.Fprintf(p.w, "\r\033[K%s: %d/%d  %.1fs", name, n.Load(), total, time.Since(t0).Seconds())
			}
		}
	})
}

func (p *progress) stop() {
	if p.w == nil || p.done == nil {
		return
	}
	close(p.done)
	p.wg.Wait()
	p.done = nil
}
