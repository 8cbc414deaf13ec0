package main

import (
	"fmt"
	"sort"

	"github.com/acme/log"
)

func main() {
	names := []string{"b", "a"}
	sort.Strings(names)
	log.Info(fmt.Sprint(names))
}
