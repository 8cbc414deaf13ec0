package inventory

import (
	"fmt"
	"sync"

	"example.com/shop/internal/catalog"
)

// Ledger records every change made to a stock and to its catalog.
type Ledger struct {
	mu    sync.Mutex
	stock *Stock
	store *catalog.Store
	lines []string
}

func NewLedger(stock *Stock, store *catalog.Store) *Ledger {
	l := new(Ledger)
	l.stock, l.store = stock, store
	l.note("opened")
	return l
}

func (l *Ledger) note(line string) {
	l.lines = append(l.lines, line)
}

// Record adds n of name to the stock, and name to the catalog.
func (l *Ledger) Record(name string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stock.Add(name, n)
	l.store.Add(catalog.Item{Name: name})
	l.note(fmt.Sprintf("%s %+d", name, n))
}

// Replay applies the lines of a ledger to an empty stock, and says which
// names ran out.
func Replay(lines []string, store *catalog.Store) (*Stock, []string, error) {
	var s Stock
	var out []string
	s.entries = make(map[string]*Entry)
	l := NewLedger(&s, store)
	for _, line := range lines {
		var name string
		var n int
		if _, err := fmt.Sscanf(line, "%s %d", &name, &n); err != nil {
			return nil, nil, describe(err)
		}
		l.Record(name, n)
		if n < 0 && s.Count(name) == 0 {
			out = append(out, name)
		}
	}
	return &s, out, nil
}

func describe(err error) error {
	return fmt.Errorf("ledger: %s", err.Error())
}
