// Package catalog holds the products a shop sells.
package catalog

import (
	"bufio"
	"os"
	"sort"
	"strconv"
	"sync"
)

type Item struct {
	Name  string
	Price int
}

func (it Item) String() string {
	return it.Name
}

// Store is a named collection of items, indexed by name.
type Store struct {
	Named
	mu    sync.Mutex
	items map[string]Item
}

func NewStore(name string) *Store {
	return &Store{Named: Named{Name: name}, items: make(map[string]Item)}
}

func (s *Store) Add(it Item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index(it)
}

func (s *Store) index(it Item) {
	s.items[it.Name] = it
}

func (s *Store) Names() []string {
	names := make([]string, 0, len(s.items))
	for name := range s.items {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Load reads one item name per line.
func Load(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []Item
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		items = append(items, Item{Name: sc.Text()})
	}
	return items, sc.Err()
}

// ParseError is a line of a catalog file that does not parse.
type ParseError struct {
	Line int
}

func (e *ParseError) Error() string {
	return "catalog: bad line " + strconv.Itoa(e.Line)
}
