// Command shop prints the stock level of every product in the catalog.
package main

import (
	"fmt"
	"os"

	"example.com/shop/internal/catalog"
	inv "example.com/shop/internal/inventory"
)

var store = catalog.NewStore("main")

func main() {
	dir := dataDir()
	items, err := catalog.Load(dir + "/catalog.txt")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, it := range items {
		store.Add(it)
	}
	stock, err := inv.Load(dir + "/stock.txt")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	restock(store, []string{"sample"})
	report(store, stock)
}

// restock puts one of each name into whatever keeps them.
func restock(dst interface{}, names []string) {
	for _, name := range names {
		switch d := dst.(type) {
		case *catalog.Store:
			d.Add(catalog.Item{Name: name})
		case *inv.Stock:
			d.Add(name, 1)
		}
	}
}

func report(s *catalog.Store, st *inv.Stock) {
	for _, name := range s.Names() {
		fmt.Printf("%-20s %5d\n", name, st.Count(name))
	}
}

// audit's receivers are what functions of other packages return: Load's
// *Stock, NewStore's *Store, NewLedger's *Ledger.
func audit(dir string) int {
	st, err := inv.Load(dir + "/stock.txt")
	if err != nil {
		return 0
	}
	catalog.NewStore("audit").Add(catalog.Item{Name: "sample"})
	inv.NewLedger(st, store).Record("sample", 1)
	return st.Count("sample")
}
