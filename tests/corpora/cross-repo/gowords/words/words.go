package words

import "strings"

// Count is exported: another module calls it as words.Count.
func Count(s string) int {
	return len(fields(s))
}

func fields(s string) []string {
	return strings.Fields(s)
}
