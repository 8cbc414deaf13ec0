package fmtsort

import "golang.org/x/text/width"

// Order puts the text in display order.
func Order(s string) string {
	return width.Narrow(s)
}
