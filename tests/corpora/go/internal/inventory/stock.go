// Package inventory counts what is on the shelves.
package inventory

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"example.com/shop/internal/catalog"
)

// Entry is a catalog item with a count.
type Entry struct {
	catalog.Item
	Count int
}

type Stock struct {
	entries map[string]*Entry
}

func (s *Stock) Add(name string, n int) {
	e := s.entries[name]
	if e == nil {
		e = &Entry{Item: catalog.Item{Name: name}}
		s.entries[name] = e
	}
	e.Count = clamp(e.Count + n)
}

// Names lists what is stocked, as the catalog prints it.
func (s *Stock) Names() []string {
	var names []string
	for _, e := range s.entries {
		names = append(names, e.String())
	}
	return names
}

func (s *Stock) Count(name string) int {
	if e := s.entries[name]; e != nil {
		return e.Count
	}
	return 0
}

func clamp(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// Load reads "name count" lines.
func Load(path string) (*Stock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Stock{entries: make(map[string]*Entry)}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			return nil, err
		}
		s.Add(fields[0], n)
	}
	return s, sc.Err()
}
