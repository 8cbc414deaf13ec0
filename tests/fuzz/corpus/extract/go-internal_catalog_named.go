package catalog

import (
	"fmt"
	"strings"
)

// Named is embedded by everything that has a display name.
type Named struct {
	Name string
}

func (n Named) Label() string {
	return strings.Title(n.Name)
}

// Labeler is anything that can be listed.
type Labeler interface {
	fmt.Stringer
	Label() string
}
